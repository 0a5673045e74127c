// Decoded pages and page-map segments of an index, shared by every cursor
// over the trace; a page stored as a delta is rebuilt from its chain
// (engine/page_delta_codec.h), at most kMaxPageDeltaChain blob reads, fewer
// when a version on the chain is cached. Errors are noted on the index
// (IndexFile::chunk_error names the blob). Bounded: when full, a share of the entries is dropped
// (entries still in use by a cursor stay alive through their shared_ptr).
#pragma once
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "engine/keyframe_codec.h"
#include "state/paged_memory.h"

namespace ttd {

class IndexFile;

class PageCache {
 public:
  // A segment holds up to 512 entries (8 KiB), hence fewer of them.
  PageCache(const IndexFile& index, size_t max_pages = 16384, size_t max_segments = 1024)
      : index_(index), max_pages_(max_pages), max_segments_(max_segments) {}
  // The page with this id, or nullptr if the id or the stored page is bad.
  std::shared_ptr<Page> get(uint64_t id);
  // The segment with this id, or nullptr if the id or the stored segment is bad.
  std::shared_ptr<const SegmentPages> segment(uint64_t id);
  // As the keyframe decoder wants it.
  SegmentById segment_source() {
    return [this](uint64_t id) { return segment(id); };
  }

 private:
  const IndexFile& index_;
  size_t max_pages_, max_segments_;
  std::mutex mu_;
  std::unordered_map<uint64_t, std::shared_ptr<Page>> pages_;
  std::unordered_map<uint64_t, std::shared_ptr<const SegmentPages>> segments_;
};

}  // namespace ttd
