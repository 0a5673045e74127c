#include "engine/page_cache.h"

#include <cstring>
#include <string>

#include "engine/index_file.h"

namespace ttd {

namespace {
// A cached entry, or nullptr.
template <class Map>
typename Map::mapped_type cached(std::mutex& mu, const Map& m, uint64_t id) {
  std::lock_guard<std::mutex> lock(mu);
  auto it = m.find(id);
  return it == m.end() ? nullptr : it->second;
}
// Adds an entry; when full, drops about a quarter first (cheap and good
// enough for seek locality).
template <class Map>
void remember(std::mutex& mu, Map& m, uint64_t id, typename Map::mapped_type v, size_t max) {
  std::lock_guard<std::mutex> lock(mu);
  if (m.size() >= max) {
    size_t drop = max / 4 + 1;
    for (auto it = m.begin(); it != m.end() && drop; --drop) it = m.erase(it);
  }
  m.emplace(id, std::move(v));
}
}  // namespace

std::shared_ptr<Page> PageCache::get(uint64_t id) {
  if (auto hit = cached(mu_, pages_, id)) return hit;
  BlobRef ref;
  if (!index_.page_ref(id, ref)) return nullptr;
  std::string raw;
  if (!index_.read_blob(ref, raw) || raw.size() != sizeof(Page)) return nullptr;
  auto page = std::make_shared<Page>();
  std::memcpy(page.get(), raw.data(), sizeof(Page));
  remember(mu_, pages_, id, page, max_pages_);
  return page;
}

std::shared_ptr<const SegmentPages> PageCache::segment(uint64_t id) {
  if (auto hit = cached(mu_, segments_, id)) return hit;
  BlobRef ref;
  if (!index_.segment_ref(id, ref)) return nullptr;
  std::string raw;
  auto seg = std::make_shared<SegmentPages>();
  if (!index_.read_blob(ref, raw) ||
      !decode_segment(reinterpret_cast<const uint8_t*>(raw.data()), raw.size(), *seg))
    return nullptr;
  remember(mu_, segments_, id, seg, max_segments_);
  return seg;
}

}  // namespace ttd
