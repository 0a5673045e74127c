// LiveState over the running emulator: what RecordOptions::on_step and the
// self-check see. Registers are read lazily, once per instruction.
#pragma once
#include <unicorn/unicorn.h>

#include "tools/recorder/guest_memory.h"
#include "tools/recorder/recorder.h"
#include "tools/recorder/register_tracker.h"

namespace ttd::rec {

class EmulatorView final : public LiveState {
 public:
  EmulatorView(uc_engine* uc, const ArchDesc& arch, const RegisterTracker& tracked, const GuestMemory& mem)
      : uc_(uc), arch_(arch), tracked_(tracked), mem_(mem), regs_(arch) {}

  // Starts a new instruction: cached registers are stale from here on.
  void at(uint64_t pc) {
    pc_ = pc;
    fresh_ = false;
  }

  const ArchDesc& arch() const override { return arch_; }
  uint64_t pc() const override { return pc_; }
  const RegisterFile& registers() const override;
  bool read_memory(uint64_t addr, std::span<uint8_t> out) const override {
    return mem_.accessible(addr, out.size(), 0) && mem_.read(addr, out);
  }

 private:
  uc_engine* uc_;
  const ArchDesc& arch_;
  const RegisterTracker& tracked_;
  const GuestMemory& mem_;
  uint64_t pc_ = 0;
  mutable RegisterFile regs_;
  mutable bool fresh_ = false;
};

}  // namespace ttd::rec
