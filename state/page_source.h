// Where the bytes of lazily installed pages come from. state/ knows no
// index: a PagedMemory holds lazy page groups (group number, group id) and
// asks its PageSource for a page only when something reads or writes it;
// engine/ implements this over the index's page store and page cache.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "state/error.h"

namespace ttd {

struct Page;

// A lazy group covers 2^kPageGroupShift consecutive page numbers (2 MiB).
constexpr uint64_t kPageGroupShift = 9;
constexpr uint64_t kPageGroupPages = uint64_t(1) << kPageGroupShift;

class PageSource {
 public:
  virtual ~PageSource() = default;
  // The page at `rel` (0..kPageGroupPages-1) of the group stored under
  // `group_id`: the page, nullptr when the group has no page there, or an
  // Error naming the file and offset when the group or page cannot be read.
  // The page may be shared: PagedMemory copies it before writing.
  virtual Result<std::shared_ptr<Page>> page_at(uint64_t group_id, uint64_t rel) = 0;
  // The numbers (rel, ascending) of every page the group has.
  virtual Result<std::vector<uint64_t>> page_numbers(uint64_t group_id) = 0;
};

// One lazy group of a page map: page numbers [key << kPageGroupShift,
// (key + 1) << kPageGroupShift) are those the source stores under id.
struct LazyGroupRef {
  uint64_t key = 0, id = 0;
};

}  // namespace ttd
