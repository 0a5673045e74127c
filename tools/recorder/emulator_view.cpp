#include "tools/recorder/emulator_view.h"

namespace ttd::rec {

const RegisterFile& EmulatorView::registers() const {
  if (fresh_) return regs_;
  regs_.invalidate_all();
  for (const TrackedReg& r : tracked_.regs()) {
    alignas(16) uint8_t buf[64] = {};
    uc_reg_read(uc_, r.uc_id, buf);
    regs_.set_bytes(r.index, {buf, r.bytes});
  }
  // The emulator's own pc (not the hook's address), so that callers can
  // check the two agree.
  uint64_t pc = 0;
  uc_reg_read(uc_, arch_.pc().unicorn_id, &pc);
  regs_.set_u64(arch_.pc_index, pc);
  fresh_ = true;
  return regs_;
}

}  // namespace ttd::rec
