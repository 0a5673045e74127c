#include "formats/tenet/register_lookup.h"

#include "formats/tenet/ascii_lower.h"

namespace ttd::fmt::tenet {

std::optional<uint16_t> RegisterLookup::slow_find(std::string_view lower_name) {
  return arch_->find(lower_name);
}

std::optional<uint16_t> RegisterLookup::find(std::string_view name) {
  if (name.empty()) return std::nullopt;
  // Register names are printable words; anything else (NUL, control bytes)
  // would also break the packed keys below.
  for (char c : name)
    if (uint8_t(c) <= 0x20 || uint8_t(c) >= 0x7f) return std::nullopt;
  if (name.size() > 8) {
    std::string key(name);
    for (char& c : key) c = ascii_lower(c);
    auto it = long_names_.find(key);
    if (it == long_names_.end()) {
      auto idx = slow_find(key);
      it = long_names_.emplace(key, idx ? int32_t(*idx) : -1).first;
    }
    if (it->second < 0) return std::nullopt;
    return uint16_t(it->second);
  }
  uint64_t key = 0;
  char lowered[8];
  for (size_t i = 0; i < name.size(); ++i) {
    lowered[i] = ascii_lower(name[i]);
    key |= uint64_t(uint8_t(lowered[i])) << (8 * i);
  }
  size_t h = size_t((key * 0x9E3779B97F4A7C15ull) >> 56) & (kSlots - 1);
  for (size_t probe = 0; probe < kSlots; ++probe) {
    Slot& s = slots_[(h + probe) & (kSlots - 1)];
    if (s.key == key) {
      if (s.index < 0) return std::nullopt;
      return uint16_t(s.index);
    }
    if (s.key == 0) {
      auto idx = slow_find(std::string_view(lowered, name.size()));
      s.key = key;
      s.index = idx ? int32_t(*idx) : -1;
      return idx;
    }
  }
  // Table full (a trace full of distinct garbage names): answer uncached.
  return slow_find(std::string_view(lowered, name.size()));
}

}  // namespace ttd::fmt::tenet
