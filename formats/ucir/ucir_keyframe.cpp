#include "formats/ucir/ucir_keyframe.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include "formats/ucir/backing_file.h"

namespace ttd::fmt::ucir {

namespace {

struct MapInfo {
  uint64_t addr, size;
  size_t map_effect = 0;   // index into kf.effects()
  uint32_t writes = 0;
  size_t first_write = 0;  // index into kf.effects()
};

constexpr size_t kMaxBackingNotes = 16;
constexpr size_t kMaxNoteName = 256;  // names come from the trace (up to 64 KiB)

std::string hex(uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}

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

KeyframeSummary apply_keyframe_policy(EffectGroup& kf, bool backing_files) {
  KeyframeSummary s;
  std::vector<MapInfo> maps;
  Owners owners;
  std::string described_program;
  const auto effects = kf.effects();
  for (size_t i = 0; i < effects.size(); ++i) {
    const Effect& e = effects[i];
    if (e.op == OP_MEM_MAP) {
      ++s.mappings;
      owners.map(e.addr, e.size, maps.size());
      maps.push_back({e.addr, e.size, i});
      if (s.exec_path.empty() && e.reg == 1 && e.len > 0)
        s.exec_path.assign(reinterpret_cast<const char*>(kf.data_of(e)), e.len);
      // ttd record names mappings by their file in the description (no
      // backing-file field: that would make this reader re-check trimmed
      // data): its first executable mapping named by a path is the program.
      if (described_program.empty() && e.reg == 0 && (e.prot & 4) && e.len > 1 && kf.data_of(e)[0] == '/')
        described_program.assign(reinterpret_cast<const char*>(kf.data_of(e)), e.len);
    } else if (e.op == OP_MEM_WRITE) {
      ++s.writes;
      if (const size_t* id = owners.owner(e.addr))
        if (maps[*id].writes++ == 0) maps[*id].first_write = i;
    }
  }
  if (s.exec_path.empty()) s.exec_path = std::move(described_program);
  uint64_t budget = kBackingReadBudget;
  for (const MapInfo& m : maps) {
    if (m.writes != 1) continue;
    Effect& w = effects[m.first_write];
    if (w.addr != m.addr || w.len == 0 || w.len >= m.size) continue;
    const Effect& map = effects[m.map_effect];
    if (map.reg == 1 && map.len > 0) {
      const std::string file(reinterpret_cast<const char*>(kf.data_of(map)), map.len);
      std::string note = hex(m.addr) + " (" + (file.size() > kMaxNoteName ? file.substr(0, kMaxNoteName) + "..." : file) +
                         "): ";
      BackingMatch got;
      if (!backing_files)
        got.reason = "backing files not read (--no-backing-files)";
      else if (file.find('\0') != std::string::npos)
        got.reason = "the name holds a NUL byte";  // the system would open a shorter name
      else
        got = match_backing_file(file, map.file_off, map.file_len, m.size, {kf.data_of(w), w.len}, budget);
      if (got.agrees) {
        // The file shows where the trimmed bytes sit; they are the trace's own.
        w.addr = m.addr + got.lead;
        ++s.recovered_mappings;
        note += "recovered: the file's bytes from offset " + std::to_string(map.file_off) +
                " agree with the trimmed data, which starts at +" + hex(got.lead);
      } else {
        note += "unknown: " + got.reason;
      }
      if (s.backing_notes.size() < kMaxBackingNotes) s.backing_notes.push_back(std::move(note));
      if (got.agrees) continue;
    }
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
