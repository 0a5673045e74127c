#include "engine/page_cache.h"

#include <cstring>
#include <string>

#include "engine/index_file.h"

namespace ttd {

std::shared_ptr<Page> PageCache::get(uint64_t id) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = pages_.find(id);
    if (it != pages_.end()) return it->second;
  }
  if (id >= index_.pages().size()) return nullptr;
  std::string raw;
  if (!index_.read_blob(index_.pages()[id], raw) || raw.size() != sizeof(Page)) return nullptr;
  auto page = std::make_shared<Page>();
  std::memcpy(page.get(), raw.data(), sizeof(Page));
  std::lock_guard<std::mutex> lock(mu_);
  if (pages_.size() >= max_pages_) {
    // Drop about a quarter; cheap and good enough for seek locality.
    size_t drop = max_pages_ / 4 + 1;
    for (auto it = pages_.begin(); it != pages_.end() && drop;) {
      it = pages_.erase(it);
      --drop;
    }
  }
  pages_.emplace(id, page);
  return page;
}

std::shared_ptr<const SegmentPages> PageCache::segment(uint64_t id) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = segments_.find(id);
    if (it != segments_.end()) return it->second;
  }
  if (id >= index_.segments().size()) return nullptr;
  std::string raw;
  auto seg = std::make_shared<SegmentPages>();
  if (!index_.read_blob(index_.segments()[id], raw) ||
      !decode_segment(reinterpret_cast<const uint8_t*>(raw.data()), raw.size(), *seg))
    return nullptr;
  std::lock_guard<std::mutex> lock(mu_);
  if (segments_.size() >= max_pages_) {
    size_t drop = max_pages_ / 4 + 1;
    for (auto it = segments_.begin(); it != segments_.end() && drop;) {
      it = segments_.erase(it);
      --drop;
    }
  }
  segments_.emplace(id, seg);
  return seg;
}

}  // namespace ttd
