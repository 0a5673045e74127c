#include "formats/umtrace/register_shadow.h"

#include <algorithm>
#include <cstring>

namespace ttd::fmt::umtrace {

RegisterShadow::RegisterShadow(const ArchDesc& arch)
    : arch_(&arch), bytes_(arch.file_bytes, 0), known_(arch.file_bytes, 0), full_(arch.regs.size(), 0) {}

void RegisterShadow::write(TraceSink& sink, uint64_t tid, const RegTarget& t, const uint8_t* bytes, uint32_t size,
                           bool zero_extend) {
  const RegisterDesc& d = arch_->regs[t.reg];
  const uint32_t width = d.bytes();
  if (t.offset >= width) return;
  const uint32_t n = std::min<uint32_t>(size, width - t.offset);
  uint8_t* b = bytes_.data() + d.offset;
  uint8_t* k = known_.data() + d.offset;
  const uint32_t tail = zero_extend ? width - t.offset - n : 0;
  if (full_[t.reg] && std::memcmp(b + t.offset, bytes, n) == 0) {
    bool tail_zero = true;
    for (uint32_t i = 0; i < tail && tail_zero; ++i) tail_zero = b[t.offset + n + i] == 0;
    if (tail_zero) return;  // nothing changes: the common case for inputs
  }
  std::memcpy(b + t.offset, bytes, n);
  std::memset(k + t.offset, 1, n);
  if (tail) {
    std::memset(b + t.offset + n, 0, tail);
    std::memset(k + t.offset + n, 1, tail);
  }
  if (!full_[t.reg]) full_[t.reg] = std::all_of(k, k + width, [](uint8_t x) { return x != 0; });
  if (full_[t.reg]) sink.reg(tid, t.reg, {b, width});
}

void RegisterShadow::forget(TraceSink& sink, uint64_t tid, uint16_t reg) {
  const RegisterDesc& d = arch_->regs[reg];
  if (full_[reg]) sink.reg_unknown(tid, reg);
  full_[reg] = 0;
  std::memset(known_.data() + d.offset, 0, d.bytes());
}

void RegisterShadow::forget_all(TraceSink& sink, uint64_t tid) {
  for (uint16_t r = 0; r < arch_->regs.size(); ++r)
    if (full_[r]) sink.reg_unknown(tid, r);
  std::fill(full_.begin(), full_.end(), 0);
  std::fill(known_.begin(), known_.end(), 0);
  pc_known_ = false;
}

}  // namespace ttd::fmt::umtrace
