#include "formats/ucir/ucir_keyframe.h"

#include <algorithm>
#include <map>

namespace ttd::fmt::ucir {

namespace {

struct MapInfo {
  uint64_t addr, size;
  uint32_t writes = 0;
  size_t first_write = 0;  // index into kf.effects()
};

// Which keyframe mapping owns each address: a later mapping replaces the
// parts of earlier ones it covers (as mmap does). An interval map keeps the
// lookup logarithmic, so a hostile keyframe with very many mappings and
// writes cannot make this quadratic.
class Owners {
 public:
  void map(uint64_t addr, uint64_t size, size_t id) {
    if (size == 0) return;
    const uint64_t last = addr + (size - 1);  // ranges never wrap (the parser checks)
    auto it = spans_.upper_bound(addr);
    if (it != spans_.begin()) --it;
    while (it != spans_.end() && it->first <= last) {
      const uint64_t s = it->first, e = it->second.last;
      const size_t owner = it->second.id;
      if (e < addr) {
        ++it;
        continue;
      }
      it = spans_.erase(it);
      if (s < addr) spans_.emplace(s, Span{addr - 1, owner});
      if (e > last) it = spans_.emplace(last + 1, Span{e, owner}).first;
    }
    spans_.emplace(addr, Span{last, id});
  }
  const size_t* owner(uint64_t addr) const {
    auto it = spans_.upper_bound(addr);
    if (it == spans_.begin()) return nullptr;
    --it;
    return addr <= it->second.last ? &it->second.id : nullptr;
  }

 private:
  struct Span {
    uint64_t last;
    size_t id;
  };
  std::map<uint64_t, Span> spans_;  // by first address, non-overlapping
};

}  // namespace

KeyframeSummary apply_keyframe_policy(EffectGroup& kf) {
  KeyframeSummary s;
  std::vector<MapInfo> maps;
  Owners owners;
  const auto effects = kf.effects();
  for (size_t i = 0; i < effects.size(); ++i) {
    const Effect& e = effects[i];
    if (e.op == OP_MEM_MAP) {
      ++s.mappings;
      owners.map(e.addr, e.size, maps.size());
      maps.push_back({e.addr, e.size});
      if (s.exec_path.empty() && e.reg == 1 && e.len > 0)
        s.exec_path.assign(reinterpret_cast<const char*>(kf.data_of(e)), e.len);
    } else if (e.op == OP_MEM_WRITE) {
      ++s.writes;
      if (const size_t* id = owners.owner(e.addr))
        if (maps[*id].writes++ == 0) maps[*id].first_write = i;
    }
  }
  for (const MapInfo& m : maps) {
    if (m.writes != 1) continue;
    Effect& w = effects[m.first_write];
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
