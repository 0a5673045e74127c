#include "engine/page_cache.h"

#include <cstring>
#include <string>
#include <vector>

#include "engine/index_file.h"
#include "engine/page_delta_codec.h"
#include "state/page_pool.h"

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
  // Walk the delta chain back to a whole page, the zero page or a cached
  // version (engine/page_delta_codec.h), then apply the deltas forward,
  // caching each version made on the way.
  struct Link {
    uint64_t id, offset;
    std::string raw;
    PageDeltaHead head;
  };
  std::vector<Link> chain;
  std::shared_ptr<Page> base;
  for (uint64_t cur = id;;) {
    BlobRef ref;
    if (!index_.page_ref(cur, ref)) return nullptr;
    std::string raw;
    if (!index_.read_blob(ref, raw)) return nullptr;
    if (raw.size() == sizeof(Page)) {
      base = make_page_from_bytes(raw.data());
      if (chain.empty()) break;
      remember(mu_, pages_, cur, base, max_pages_);
      break;
    }
    if (chain.size() == kMaxPageDeltaChain) {
      index_.note_failure(ref.offset, "page " + std::to_string(id) + ": delta chain longer than " +
                                          std::to_string(kMaxPageDeltaChain));
      return nullptr;
    }
    Link& l = chain.emplace_back(Link{cur, ref.offset, std::move(raw), {}});
    if (const char* e = parse_page_delta(reinterpret_cast<const uint8_t*>(l.raw.data()), l.raw.size(), cur, l.head)) {
      index_.note_failure(ref.offset, "page " + std::to_string(cur) + ": " + e);
      return nullptr;
    }
    if (l.head.zero_base) {
      base = make_page();
      break;
    }
    cur = l.head.base_id;
    if ((base = cached(mu_, pages_, cur))) break;
  }
  for (auto l = chain.rbegin(); l != chain.rend(); ++l) {
    auto page = make_page_copy(*base);
    if (const char* e = apply_page_delta(reinterpret_cast<const uint8_t*>(l->raw.data()), l->raw.size(), l->head, *page)) {
      index_.note_failure(l->offset, "page " + std::to_string(l->id) + ": " + e);
      return nullptr;
    }
    base = std::move(page);
    if (l + 1 != chain.rend()) remember(mu_, pages_, l->id, base, max_pages_);
  }
  remember(mu_, pages_, id, base, max_pages_);
  return base;
}

std::shared_ptr<const SegmentPages> PageCache::segment(uint64_t id) {
  if (auto hit = cached(mu_, segments_, id)) return hit;
  // As for pages: walk the delta chain back to a whole or cached version
  // (engine/segment_codec.h), then apply the deltas forward, caching each
  // version made on the way.
  struct Link {
    uint64_t id, offset;
    std::string raw;
    SegmentHead head;
  };
  std::vector<Link> chain;
  std::shared_ptr<const SegmentPages> base;
  auto bytes = [](const std::string& raw) { return reinterpret_cast<const uint8_t*>(raw.data()); };
  for (uint64_t cur = id;;) {
    BlobRef ref;
    if (!index_.segment_ref(cur, ref)) return nullptr;
    std::string raw;
    if (!index_.read_blob(ref, raw)) return nullptr;
    SegmentHead head;
    const char* e = parse_segment_head(bytes(raw), raw.size(), cur, head);
    if (!e && !head.delta) {
      auto whole = std::make_shared<SegmentPages>();
      e = decode_segment_whole(bytes(raw), raw.size(), head, *whole);
      base = std::move(whole);
    } else if (!e && chain.size() == kMaxSegmentDeltaChain) {
      e = "delta chain longer than the reader allows";
    }
    if (e) {
      index_.note_failure(ref.offset, "page-map segment " + std::to_string(cur) + ": " + e);
      return nullptr;
    }
    if (!head.delta) {
      if (!chain.empty()) remember(mu_, segments_, cur, base, max_segments_);
      break;
    }
    chain.push_back(Link{cur, ref.offset, std::move(raw), head});
    cur = head.base_id;
    if ((base = cached(mu_, segments_, cur))) break;
  }
  for (auto l = chain.rbegin(); l != chain.rend(); ++l) {
    auto next = std::make_shared<SegmentPages>();
    if (const char* e = apply_segment_delta(bytes(l->raw), l->raw.size(), l->head, *base, *next)) {
      index_.note_failure(l->offset, "page-map segment " + std::to_string(l->id) + ": " + e);
      return nullptr;
    }
    base = std::move(next);
    if (l + 1 != chain.rend()) remember(mu_, segments_, l->id, base, max_segments_);
  }
  remember(mu_, segments_, id, base, max_segments_);
  return base;
}

}  // namespace ttd
