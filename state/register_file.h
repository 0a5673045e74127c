// One thread's registers: raw bytes in target byte order (so a gdb 'g'
// reply is their hex) plus a validity bit per register. A register the
// trace never told us about is unknown, not zero.
#pragma once
#include <bit>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <vector>

#include "state/arch.h"

namespace ttd {

class RegisterFile {
 public:
  RegisterFile() = default;
  explicit RegisterFile(const ArchDesc& arch);

  const ArchDesc& arch() const { return *arch_; }
  bool valid(uint16_t reg) const { return (valid_[reg >> 6] >> (reg & 63)) & 1u; }
  // Raw bytes of a register in target byte order (size = regs[reg].bytes()).
  std::span<const uint8_t> bytes(uint16_t reg) const;

  // Sets the register from raw target-order bytes; shorter input is
  // zero-extended (on the high side), longer input is cut.
  void set_bytes(uint16_t reg, std::span<const uint8_t> value) {
    // Inline for the common full-width 8- or 4-byte little-endian value
    // (replay sets a register on most steps).
    const auto& d = arch_->regs[reg];
    if (arch_->endian == Endian::Little && value.size() == d.bytes() && (value.size() == 8 || value.size() == 4)) {
      valid_[reg >> 6] |= (1ull << (reg & 63));
      // Fixed-size copies: a memcpy of value.size() bytes was a libc call
      // per register effect (~1 % of a gzip build's instructions).
      if (value.size() == 8)
        std::memcpy(bytes_.data() + d.offset, value.data(), 8);
      else
        std::memcpy(bytes_.data() + d.offset, value.data(), 4);
      return;
    }
    set_bytes_general(reg, value);
  }
  // set_bytes() of `bytes` (1 to 8) little-endian bytes holding `value`
  // (bits above them ignored), without the bytes: the index builder gets
  // most register values as integers.
  void set_le_value(uint16_t reg, uint64_t value, uint32_t bytes) {
    const auto& d = arch_->regs[reg];
    if (arch_->endian == Endian::Little && std::endian::native == std::endian::little && bytes == d.bytes() &&
        (bytes == 8 || bytes == 4)) {
      valid_[reg >> 6] |= (1ull << (reg & 63));
      if (bytes == 8)
        std::memcpy(bytes_.data() + d.offset, &value, 8);
      else
        std::memcpy(bytes_.data() + d.offset, &value, 4);
      return;
    }
    uint8_t le[8];
    for (uint32_t i = 0; i < 8; ++i) le[i] = uint8_t(value >> (8 * i));
    set_bytes_general(reg, {le, bytes < 8 ? bytes : 8});
  }
  // Sets the low 64 bits from an integer (written in target byte order).
  void set_u64(uint16_t reg, uint64_t value);
  std::optional<uint64_t> get_u64(uint16_t reg) const;
  void invalidate(uint16_t reg);
  void invalidate_all();

  std::span<const uint8_t> all_bytes() const { return bytes_; }
  // Validity as 4 words of 64 bits (bit i = register i), for keyframes.
  const uint64_t* valid_words() const { return valid_; }
  // Restores bytes and validity saved with all_bytes()/valid_words().
  void restore(std::span<const uint8_t> bytes, const uint64_t valid[4]);
  bool operator==(const RegisterFile& o) const;

 private:
  void set_bytes_general(uint16_t reg, std::span<const uint8_t> value);

  const ArchDesc* arch_ = nullptr;
  std::vector<uint8_t> bytes_;
  uint64_t valid_[4] = {0, 0, 0, 0};  // up to 256 registers
};

}  // namespace ttd
