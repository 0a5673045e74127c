// The recorder's self-check (RecordOptions::verify): a copy of the machine
// built only from what was written to the trace. Comparing it with the
// emulator shows any effect the recorder failed to write.
#pragma once
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "state/machine_state.h"
#include "state/paged_memory.h"
#include "state/register_file.h"
#include "tools/recorder/guest_memory.h"

namespace ttd::rec {

class TraceMirror {
 public:
  explicit TraceMirror(const ArchDesc& arch) : arch_(arch) { select_thread(1); }

  // Register effects and checks from here on are thread `number`'s.
  void select_thread(uint32_t number) {
    auto it = threads_.find(number);
    if (it == threads_.end()) it = threads_.emplace(number, RegisterFile(arch_)).first;
    regs_ = &it->second;
  }
  void reg(uint16_t index, std::span<const uint8_t> value) { regs_->set_bytes(index, value); }
  void mem_write(uint64_t addr, std::span<const uint8_t> bytes) { mem_.write(addr, bytes.data(), bytes.size()); }
  // A new mapping is zero-filled; unmapped memory is unknown.
  void mem_map(uint64_t addr, uint64_t size) { mem_.fill(addr, size, 0); }
  void mem_unmap(uint64_t addr, uint64_t size) { mem_.invalidate(addr, size); }

  // Compares the mirror's registers with `live` (registers valid in live
  // only; the pc is the trace's jmp/step business and is skipped). Returns
  // the number of registers that differ; describes the first few.
  uint64_t check_registers(const RegisterFile& live, uint64_t eid, std::vector<std::string>& errors);
  // Compares every mapped page of the emulator with the mirror; returns the
  // number of pages that differ.
  uint64_t check_memory(const GuestMemory& live, std::vector<std::string>& errors);

 private:
  const ArchDesc& arch_;
  std::map<uint32_t, RegisterFile> threads_;
  RegisterFile* regs_ = nullptr;
  PagedMemory mem_;
};

}  // namespace ttd::rec
