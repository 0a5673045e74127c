// Decoded pages of an index's page store, shared by every cursor over the
// trace. Bounded: when full, a share of the entries is dropped (pages still
// in use by a cursor stay alive through their shared_ptr).
#pragma once
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "state/paged_memory.h"

namespace ttd {

class IndexFile;

class PageCache {
 public:
  PageCache(const IndexFile& index, size_t max_pages = 16384) : index_(index), max_pages_(max_pages) {}
  // The page with this id, or nullptr if the id or the stored page is bad.
  std::shared_ptr<Page> get(uint64_t id);

 private:
  const IndexFile& index_;
  size_t max_pages_;
  std::mutex mu_;
  std::unordered_map<uint64_t, std::shared_ptr<Page>> pages_;
};

}  // namespace ttd
