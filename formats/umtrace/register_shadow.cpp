#include "formats/umtrace/register_shadow.h"

#include <algorithm>
#include <cstring>

namespace ttd::fmt::umtrace {

namespace {

// Most pieces are 1, 2, 4 or 8 bytes: compare them with one load each
// instead of a call to memcmp (this runs for every register of every record).
inline bool same_bytes(const uint8_t* a, const uint8_t* b, uint32_t n) {
  switch (n) {
    case 8: {
      uint64_t x, y;
      std::memcpy(&x, a, 8), std::memcpy(&y, b, 8);
      return x == y;
    }
    case 4: {
      uint32_t x, y;
      std::memcpy(&x, a, 4), std::memcpy(&y, b, 4);
      return x == y;
    }
    case 2: return a[0] == b[0] && a[1] == b[1];
    case 1: return a[0] == b[0];
    default: return std::memcmp(a, b, n) == 0;
  }
}

}  // namespace

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
  if (full_[t.reg] && same_bytes(b + t.offset, bytes, n)) {
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
