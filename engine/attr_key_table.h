// Attribute keys -> the index's key ids, for the index builder. Readers
// pass the same few keys for every step, so a small table compared by
// content answers without hashing or allocating a string; a new key gets
// the next id and its text is appended to `keys` (IndexMeta::attr_keys).
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/trace_text.h"

namespace ttd {

class AttrKeyTable {
 public:
  explicit AttrKeyTable(std::vector<std::string>& keys) : keys_(keys) {}

  uint32_t id(std::string_view key) {
    Slot& slot = slots_[(key.size() * 31 + (key.empty() ? 0 : uint8_t(key.back()))) & 15];
    if (!slot.key.empty() && same_key(slot.key, key)) return slot.id;
    std::string k(key);
    auto it = ids_.find(k);
    if (it == ids_.end()) {
      it = ids_.emplace(k, uint32_t(keys_.size())).first;
      keys_.push_back(text_from_trace(k));
    }
    slot.key = std::move(k);
    slot.id = it->second;
    return slot.id;
  }

 private:
  struct Slot {
    std::string key;
    uint32_t id = 0;
  };
  // Keys are short: compared here rather than through a memcmp call.
  static bool same_key(const std::string& a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < b.size(); ++i)
      if (a[i] != b[i]) return false;
    return true;
  }

  std::vector<std::string>& keys_;
  std::unordered_map<std::string, uint32_t> ids_;
  std::array<Slot, 16> slots_;
};

}  // namespace ttd
