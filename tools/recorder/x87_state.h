// The emulator's x87 state as an FXSAVE image, and back.
//
// Unicorn's FP0-FP7 are the physical registers; the image holds ST(i) =
// FP[(TOP + i) & 7] at offset 32 + 16 i, as FXSAVE stores them, with the
// abridged tag byte (a bit per physical register: not empty). The signal
// frame (signal_frame_x86_64.cpp) and the host evaluation of x87
// instructions (x87_host_eval.h) both use this form.
#pragma once
#include <cstdint>

#include <unicorn/unicorn.h>

namespace ttd::rec {

struct alignas(64) FxsaveImage {
  static constexpr size_t kSize = 512;
  uint8_t b[kSize] = {};
};

// FCW, FSW, the abridged tag byte and ST0-ST7 of `uc` into `image`; the
// other bytes are left as they are.
void read_x87(uc_engine* uc, FxsaveImage& image);
// The same fields from `image` into `uc` (a non-empty register's full tag
// is left for Unicorn to work out).
void write_x87(uc_engine* uc, const FxsaveImage& image);

}  // namespace ttd::rec
