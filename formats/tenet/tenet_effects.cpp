#include "formats/tenet/tenet_effects.h"

#include <algorithm>

#include "formats/tenet/tenet_arch.h"

namespace ttd::fmt::tenet {

std::vector<uint16_t> registers_missing_from_first_line(const ArchDesc& arch, const ParsedLine& line) {
  std::vector<uint16_t> missing;
  for (std::string_view name : tenet_register_set(arch.id)) {
    auto idx = arch.find(name);
    if (!idx || *idx == arch.pc_index) continue;
    bool present = std::any_of(line.regs.begin(), line.regs.end(),
                               [&](const RegisterValue& r) { return r.index == *idx; });
    if (!present) missing.push_back(*idx);
  }
  return missing;
}

void EffectEmitter::initial_state(const ParsedLine& line) {
  static const uint8_t kZero[64] = {};
  for (uint16_t idx : registers_missing_from_first_line(arch_, line))
    sink_.reg(tid_, idx, std::span<const uint8_t>(kZero, std::min<size_t>(arch_.regs[idx].bytes(), sizeof kZero)));
  registers(line);
  // Whatever the line's accesses saw is memory content at the start.
  for (const MemoryAccess& m : line.mem)
    sink_.mem_write(pid_, m.addr, std::span<const uint8_t>(line.mem_bytes.data() + m.offset, m.size));
}

void EffectEmitter::registers(const ParsedLine& line) {
  for (const RegisterValue& r : line.regs)
    sink_.reg(tid_, r.index, std::span<const uint8_t>(line.reg_bytes.data() + r.offset, r.size));
}

bool EffectEmitter::overlaps_a_write(const ParsedLine& line, const MemoryAccess& read) const {
  for (const MemoryAccess& w : line.mem) {
    if (w.kind == AccessKind::Read) continue;
    if (read.addr <= w.addr + (w.size - 1) && w.addr <= read.addr + (read.size - 1)) return true;
  }
  return false;
}

void EffectEmitter::step_effects(const ParsedLine& line) {
  registers(line);
  // Bytes on a line were fetched after the instruction ran. For a pure read
  // that is the value it read; where the same instruction also wrote those
  // bytes (mrw, or mr + mw on one address as Pin writes for `inc [mem]`)
  // the bytes show the write, so the value read is not known.
  for (const MemoryAccess& m : line.mem) {
    if (m.kind == AccessKind::Write) continue;
    if (m.kind == AccessKind::Read && !overlaps_a_write(line, m))
      sink_.mem_read(pid_, m.addr, m.size, std::span<const uint8_t>(line.mem_bytes.data() + m.offset, m.size));
    else
      sink_.mem_read(pid_, m.addr, m.size, {});
  }
  for (const MemoryAccess& m : line.mem)
    if (m.kind != AccessKind::Read)
      sink_.mem_write(pid_, m.addr, std::span<const uint8_t>(line.mem_bytes.data() + m.offset, m.size));
}

}  // namespace ttd::fmt::tenet
