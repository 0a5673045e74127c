#include "state/register_file.h"
#include "state/target_value.h"

#include <algorithm>
#include <stdexcept>

namespace ttd {

RegisterFile::RegisterFile(const ArchDesc& arch) : arch_(&arch), bytes_(arch.file_bytes, 0) {
  if (arch.regs.size() > 256) throw std::logic_error("RegisterFile: more than 256 registers");
}

std::span<const uint8_t> RegisterFile::bytes(uint16_t reg) const {
  const auto& d = arch_->regs[reg];
  return {bytes_.data() + d.offset, d.bytes()};
}

void RegisterFile::set_bytes_general(uint16_t reg, std::span<const uint8_t> value) {
  const auto& d = arch_->regs[reg];
  uint8_t* dst = bytes_.data() + d.offset;
  valid_[reg >> 6] |= (1ull << (reg & 63));
  size_t n = std::min<size_t>(value.size(), d.bytes());
  if (arch_->endian == Endian::Little) {
    std::memcpy(dst, value.data(), n);
    std::memset(dst + n, 0, d.bytes() - n);
  } else {
    // Big-endian: a short value is the low-order (rightmost) bytes.
    std::memset(dst, 0, d.bytes() - n);
    std::memcpy(dst + d.bytes() - n, value.data() + (value.size() - n), n);
  }
  valid_[reg >> 6] |= (1ull << (reg & 63));
}

void RegisterFile::set_u64(uint16_t reg, uint64_t value) {
  const auto& d = arch_->regs[reg];
  uint8_t* dst = bytes_.data() + d.offset;
  uint32_t n = d.bytes();
  valid_[reg >> 6] |= (1ull << (reg & 63));
  if (n == 8 && arch_->endian == Endian::Little) {  // the hot case: 64-bit pc on a little-endian target
    std::memcpy(dst, &value, 8);
    return;
  }
  store_target_value(arch_->endian, dst, n, value);
  valid_[reg >> 6] |= (1ull << (reg & 63));
}

std::optional<uint64_t> RegisterFile::get_u64(uint16_t reg) const {
  if (!valid(reg)) return std::nullopt;
  const auto& d = arch_->regs[reg];
  const uint8_t* src = bytes_.data() + d.offset;
  return target_value_u64(arch_->endian, src, d.bytes());
}

void RegisterFile::invalidate(uint16_t reg) {
  const auto& d = arch_->regs[reg];
  std::memset(bytes_.data() + d.offset, 0, d.bytes());
  valid_[reg >> 6] &= ~(1ull << (reg & 63));
}

void RegisterFile::invalidate_all() {
  std::fill(bytes_.begin(), bytes_.end(), 0);
  std::fill(std::begin(valid_), std::end(valid_), 0);
}

void RegisterFile::restore(std::span<const uint8_t> bytes, const uint64_t valid[4]) {
  std::copy_n(bytes.data(), std::min(bytes.size(), bytes_.size()), bytes_.begin());
  std::copy_n(valid, 4, valid_);
}

bool RegisterFile::operator==(const RegisterFile& o) const {
  return arch_ == o.arch_ && bytes_ == o.bytes_ && std::equal(std::begin(valid_), std::end(valid_), std::begin(o.valid_));
}

}  // namespace ttd
