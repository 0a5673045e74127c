// Case-insensitive register name -> index for one architecture, fast enough
// to run for every entry of every line: names of up to 8 characters are
// packed into one integer and found in a small open-addressing table that
// is filled from ArchDesc::find on first sight.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "state/arch.h"

namespace ttd::fmt::tenet {

class RegisterLookup {
 public:
  explicit RegisterLookup(const ArchDesc& arch) : arch_(&arch) {}
  std::optional<uint16_t> find(std::string_view name);

 private:
  static constexpr size_t kSlots = 256;  // power of two, > twice the names a trace uses
  struct Slot {
    uint64_t key = 0;  // 0 = empty (no register name packs to 0)
    int32_t index = -1;  // -1: known not to be a register
  };
  std::optional<uint16_t> slow_find(std::string_view lower_name);

  const ArchDesc* arch_;
  std::array<Slot, kSlots> slots_{};
  std::unordered_map<std::string, int32_t> long_names_;
};

}  // namespace ttd::fmt::tenet
