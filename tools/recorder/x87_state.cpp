#include "tools/recorder/x87_state.h"

#include <cstring>

namespace ttd::rec {

namespace {

// What Unicorn reads and writes for FP0-FP7: the 64-bit mantissa, then
// the sign and exponent.
struct Float80 {
  uint64_t mantissa;
  uint16_t exponent;
};

template <class T>
void put(FxsaveImage& image, size_t off, T v) {
  std::memcpy(image.b + off, &v, sizeof v);
}
template <class T>
T get(const FxsaveImage& image, size_t off) {
  T v;
  std::memcpy(&v, image.b + off, sizeof v);
  return v;
}

}  // namespace

void read_x87(uc_engine* uc, FxsaveImage& image) {
  // One call into Unicorn for all eleven (a register instruction's
  // evaluation reads them twice).
  static constexpr int kIds[11] = {UC_X86_REG_FPCW, UC_X86_REG_FPSW, UC_X86_REG_FPTAG, UC_X86_REG_FP0,
                                   UC_X86_REG_FP1,  UC_X86_REG_FP2,  UC_X86_REG_FP3,   UC_X86_REG_FP4,
                                   UC_X86_REG_FP5,  UC_X86_REG_FP6,  UC_X86_REG_FP7};
  uint64_t control[3] = {};
  Float80 fp[8] = {};
  void* ptrs[11] = {&control[0], &control[1], &control[2], &fp[0], &fp[1], &fp[2], &fp[3], &fp[4], &fp[5], &fp[6], &fp[7]};
  uc_reg_read_batch(uc, const_cast<int*>(kIds), ptrs, 11);
  const uint16_t fsw = uint16_t(control[1]), tag = uint16_t(control[2]);
  uint8_t abridged = 0;
  for (int i = 0; i < 8; ++i)
    if (((tag >> (2 * i)) & 3) != 3) abridged |= uint8_t(1 << i);
  put<uint16_t>(image, 0, uint16_t(control[0]));
  put<uint16_t>(image, 2, fsw);
  put<uint8_t>(image, 4, abridged);
  const int top = (fsw >> 11) & 7;
  for (int i = 0; i < 8; ++i) {  // ST(i) = physical register (top + i) & 7
    const Float80& f = fp[(top + i) & 7];
    put<uint64_t>(image, 32 + 16 * size_t(i), f.mantissa);
    put<uint16_t>(image, 40 + 16 * size_t(i), f.exponent);
  }
}

void write_x87(uc_engine* uc, const FxsaveImage& image) {
  const uint64_t fcw = get<uint16_t>(image, 0), fsw = get<uint16_t>(image, 2);
  const uint8_t abridged = get<uint8_t>(image, 4);
  uint64_t tag = 0;
  for (int i = 0; i < 8; ++i)
    if (!(abridged & (1 << i))) tag |= uint64_t(3) << (2 * i);
  uc_reg_write(uc, UC_X86_REG_FPCW, &fcw);
  uc_reg_write(uc, UC_X86_REG_FPSW, &fsw);
  uc_reg_write(uc, UC_X86_REG_FPTAG, &tag);
  const int top = int(fsw >> 11) & 7;
  for (int i = 0; i < 8; ++i) {
    Float80 f{};
    f.mantissa = get<uint64_t>(image, 32 + 16 * size_t(i));
    f.exponent = get<uint16_t>(image, 40 + 16 * size_t(i));
    uc_reg_write(uc, UC_X86_REG_FP0 + ((top + i) & 7), &f);
  }
}

}  // namespace ttd::rec
