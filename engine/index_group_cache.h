// Decoded table groups of an index (engine/index_tables.h), shared by every
// reader of the index and bounded: when full, a quarter of the groups is
// dropped (a group still in use stays alive through its shared_ptr). Thread
// safe; a group is decoded outside the lock, so two threads may decode the
// same group at once (the second result is dropped).
#pragma once
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace ttd {

template <class Entry>
class IndexGroupCache {
 public:
  using Group = std::shared_ptr<const std::vector<Entry>>;
  explicit IndexGroupCache(size_t max_groups) : max_(max_groups) {}

  Group find(uint64_t g) const {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = groups_.find(g);
    return it == groups_.end() ? nullptr : it->second;
  }
  void add(uint64_t g, Group v) {
    std::lock_guard<std::mutex> lock(mu_);
    if (groups_.size() >= max_) {
      size_t drop = max_ / 4 + 1;
      for (auto it = groups_.begin(); it != groups_.end() && drop; --drop) it = groups_.erase(it);
    }
    groups_.emplace(g, std::move(v));
  }

 private:
  size_t max_;
  mutable std::mutex mu_;
  std::unordered_map<uint64_t, Group> groups_;
};

}  // namespace ttd
