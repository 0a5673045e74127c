#include "engine/index_page_source.h"

#include <algorithm>

#include "engine/index_file.h"
#include "engine/keyframe_codec.h"
#include "engine/page_cache.h"
#include "engine/trace.h"

namespace ttd {

// A lazy group is exactly one page-map segment of a keyframe.
static_assert(kSegmentShift == kPageGroupShift);

Result<std::shared_ptr<Page>> IndexPageSource::page_at(uint64_t segment_id, uint64_t rel) {
  auto seg = trace_->pages().segment(segment_id);
  if (!seg) return trace_->index().chunk_error(chunk_);
  auto it = std::lower_bound(seg->begin(), seg->end(), rel, [](const KeyframePage& p, uint64_t r) { return p.no < r; });
  if (it == seg->end() || it->no != rel) return std::shared_ptr<Page>();
  auto page = trace_->pages().get(it->id);
  if (!page) return trace_->index().chunk_error(chunk_);
  return page;
}

Result<std::vector<uint64_t>> IndexPageSource::page_numbers(uint64_t segment_id) {
  auto seg = trace_->pages().segment(segment_id);
  if (!seg) return trace_->index().chunk_error(chunk_);
  std::vector<uint64_t> out;
  out.reserve(seg->size());
  for (const KeyframePage& p : *seg) out.push_back(p.no);
  return out;
}

}  // namespace ttd
