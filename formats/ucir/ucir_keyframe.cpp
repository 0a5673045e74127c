#include "formats/ucir/ucir_keyframe.h"

#include <algorithm>

namespace ttd::fmt::ucir {

namespace {

struct MapInfo {
  uint64_t addr, size;
  uint32_t writes = 0;
  size_t first_write = 0;  // index into kf.effects
};

// The mapping a write belongs to: the most recent one holding its start.
MapInfo* owner(std::vector<MapInfo>& maps, uint64_t addr) {
  for (auto it = maps.rbegin(); it != maps.rend(); ++it)
    if (addr >= it->addr && addr - it->addr < it->size) return &*it;
  return nullptr;
}

}  // namespace

KeyframeSummary apply_keyframe_policy(EffectGroup& kf) {
  KeyframeSummary s;
  std::vector<MapInfo> maps;
  for (size_t i = 0; i < kf.effects().size(); ++i) {
    const Effect& e = kf.effects()[i];
    if (e.op == OP_MEM_MAP) {
      ++s.mappings;
      maps.push_back({e.addr, e.size});
      if (s.exec_path.empty() && e.reg == 1 && e.len > 0)
        s.exec_path.assign(reinterpret_cast<const char*>(kf.data_of(e)), e.len);
    } else if (e.op == OP_MEM_WRITE) {
      ++s.writes;
      if (MapInfo* m = owner(maps, e.addr))
        if (m->writes++ == 0) m->first_write = i;
    }
  }
  for (const MapInfo& m : maps) {
    if (m.writes != 1) continue;
    Effect& w = kf.effects()[m.first_write];
    if (w.addr != m.addr || w.len == 0 || w.len >= m.size) continue;
    w.op = kEffectMemUnknown;
    w.addr = m.addr;
    w.size = m.size;
    ++s.untrusted_mappings;
  }
  return s;
}

std::vector<uint16_t> registers_left_zero(const EffectGroup& kf, const Uc1RegisterMap& regs) {
  std::vector<uint16_t> out;
  for (uint16_t r : regs.tracked()) {
    const bool set = std::any_of(kf.effects().begin(), kf.effects().end(), [r](const Effect& e) {
      return (e.op == OP_REG || e.op == OP_SPREG) && e.reg == r;
    });
    if (!set) out.push_back(r);
  }
  return out;
}

}  // namespace ttd::fmt::ucir
