#include "tools/recorder/x87_image_fixup.h"

#include <cstring>

namespace ttd::rec {

namespace {

// Byte ranges of the 28-byte environment: the architectural words, kept
// from Unicorn, and the pointer fields, whose presence is the CPU's choice.
constexpr int kWords[] = {0, 1, 4, 5, 8, 9};                                  // FCW FSW FTW
constexpr int kPointers[] = {12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25};  // FIP FCS/FOP FDP FDS

bool in(const int* list, size_t n, int i) {
  for (size_t k = 0; k < n; ++k)
    if (list[k] == i) return true;
  return false;
}

}  // namespace

bool stores_x87_environment(const cs_insn& insn) {
  return insn.id == X86_INS_FNSAVE || insn.id == X86_INS_FNSTENV;
}

X87ImageFixup::X87ImageFixup() {
#if defined(__x86_64__)
  // The host's own x87 state is saved around the probe and put back.
  alignas(16) uint8_t saved[108];
  __asm__ volatile(
      "fnsave %0\n\t"
      "fninit\n\t"
      "fld1\n\t"
      "fnstenv %1\n\t"
      "frstor %0\n\t"
      : "+m"(saved), "=m"(host_env_));
  uint32_t fip = 0, fdp = 0;
  std::memcpy(&fip, host_env_ + 12, 4);
  std::memcpy(&fdp, host_env_ + 20, 4);
  host_saves_pointers_ = fip != 0;
  host_known_ = true;
#endif
}

std::optional<uint64_t> X87ImageFixup::after(uc_engine* uc, std::span<uint8_t, 28> image) {
  bool have = have_;
  have_ = false;
  if (!host_known_ || !have) return std::nullopt;
  if (uc_mem_read(uc, start_, image.data(), image.size()) != UC_ERR_OK) return std::nullopt;
  uint8_t fixed[28];
  std::memcpy(fixed, image.data(), sizeof fixed);
  for (int i = 0; i < 28; ++i) {
    if (in(kWords, std::size(kWords), i)) continue;
    bool pointer = in(kPointers, std::size(kPointers), i);
    // A CPU that saves the pointers has its own values there (which
    // Unicorn tracks); one that does not stores what the probe saw (zeros).
    if (pointer && host_saves_pointers_) continue;
    fixed[i] = host_env_[i];
  }
  if (std::memcmp(fixed, image.data(), sizeof fixed) == 0) return std::nullopt;
  std::memcpy(image.data(), fixed, sizeof fixed);
  if (uc_mem_write(uc, start_, fixed, sizeof fixed) != UC_ERR_OK) return std::nullopt;
  return start_;
}

}  // namespace ttd::rec
