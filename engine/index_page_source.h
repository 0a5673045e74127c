// The index's page store as a PageSource (state/page_source.h): a cursor's
// lazily restored memory reads its pages through the trace's shared page
// cache, by page-map segment id and page id, on first access.
#pragma once
#include <cstddef>
#include <memory>

#include "state/page_source.h"

namespace ttd {

class Trace;

class IndexPageSource : public PageSource {
 public:
  // `chunk`: the chunk whose keyframe lists the groups, named in errors.
  IndexPageSource(std::shared_ptr<const Trace> trace, size_t chunk) : trace_(std::move(trace)), chunk_(chunk) {}
  Result<std::shared_ptr<Page>> page_at(uint64_t segment_id, uint64_t rel) override;
  Result<std::vector<uint64_t>> page_numbers(uint64_t segment_id) override;

 private:
  std::shared_ptr<const Trace> trace_;
  size_t chunk_;
};

}  // namespace ttd
