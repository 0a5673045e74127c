// PagedMemory::evict (the index builder's page budget): an evicted page
// leaves memory without counting as a change, comes back from the source
// on its next read, and changes made to it unread (overlays) or whole
// (set_page) see the same bytes as on a memory that never evicted it.
#include <doctest/doctest.h>

#include <cstring>
#include <map>

#include "state/paged_memory.h"

// A namespace of its own: CI's unity build compiles it with its suite's other files.
namespace test_page_evict {

using namespace ttd;

namespace {

// Serves the evicted pages it was given, keyed by page number.
struct EvictedPages : PageSource {
  std::map<uint64_t, std::shared_ptr<Page>> pages;
  int reads = 0;
  Result<std::shared_ptr<Page>> page_at(uint64_t group, uint64_t rel) override {
    ++reads;
    auto it = pages.find((group << kPageGroupShift) | rel);
    if (it == pages.end()) return make_error("spill", "page not evicted");
    return it->second;
  }
  Result<std::vector<uint64_t>> page_numbers(uint64_t group) override {
    std::vector<uint64_t> out;
    for (const auto& [no, p] : pages)
      if (no >> kPageGroupShift == group) out.push_back(no & (kPageGroupPages - 1));
    return out;
  }
};

constexpr uint64_t kNo = (7 << kPageGroupShift) | 3;  // page 3 of group 7
constexpr uint64_t kAddr = kNo << kPageShift;

// Writes pages kNo - 1 .. kNo + 1, then evicts kNo into `src`.
void fill_and_evict(PagedMemory& m, EvictedPages& src) {
  uint8_t b[16];
  for (int i = 0; i < 16; ++i) b[i] = uint8_t(i + 1);
  for (uint64_t no : {kNo - 1, kNo, kNo + 1}) m.write((no << kPageShift) + 100, b, 16);
  m.start_change_log();
  const auto* held = m.find_shared(kNo);
  REQUIRE(held);
  src.pages[kNo] = *held;
  CHECK(m.evict(kNo, held->get()));
}

}  // namespace

TEST_CASE("evicted page: not resident, not a change, read back on the next read") {
  auto src = std::make_shared<EvictedPages>();
  PagedMemory m;
  m.set_page_source(src);
  fill_and_evict(m, *src);
  CHECK(m.untouched_lazy(kNo));
  CHECK_FALSE(m.untouched_lazy(kNo + 1));
  CHECK(m.resident_page_count() == 2);
  CHECK(m.changed_pages().empty());
  size_t held = 0;
  m.for_each_held([&](uint64_t) { ++held; });
  CHECK(held == 2);  // the evicted page is not faulted in
  CHECK(src->reads == 0);
  uint8_t out[16], valid[16];
  CHECK(m.read(kAddr + 100, out, valid, 16) == 16);
  CHECK(out[15] == 16);
  CHECK(src->reads == 1);
  CHECK_FALSE(m.untouched_lazy(kNo));
  CHECK(m.resident_page_count() == 3);
  CHECK(m.changed_pages().empty());
  // A page that is not the one held, or not held, is not evicted.
  auto other = std::make_shared<Page>();
  CHECK_FALSE(m.evict(kNo + 1, other.get()));
  CHECK_FALSE(m.evict(kNo + 9, nullptr));
}

TEST_CASE("evicted page: a write unread is a change and merges over the evicted bytes") {
  auto src = std::make_shared<EvictedPages>();
  PagedMemory m;
  m.set_page_source(src);
  fill_and_evict(m, *src);
  const uint8_t x = 0xee;
  m.write(kAddr + 101, &x, 1);
  CHECK(src->reads == 0);
  CHECK_FALSE(m.untouched_lazy(kNo));
  REQUIRE(m.changed_pages().size() == 1);
  CHECK(m.changed_pages()[0] == kNo);
  const auto* p = m.find_shared(kNo);
  REQUIRE(p);
  CHECK(src->reads == 1);
  CHECK((*p)->data[100] == 1);
  CHECK((*p)->data[101] == 0xee);
  CHECK((*p)->data[102] == 3);
  CHECK(src->pages[kNo]->data[101] == 2);  // the evicted version is untouched
}

TEST_CASE("evicted page: dropped or replaced whole without a read") {
  auto src = std::make_shared<EvictedPages>();
  PagedMemory m;
  m.set_page_source(src);
  fill_and_evict(m, *src);
  m.set_page(kNo, nullptr);
  CHECK(m.find_shared(kNo) == nullptr);
  CHECK(src->reads == 0);
  fill_and_evict(m, *src);
  m.fill(kAddr, kPageSize, 0);
  const auto* p = m.find_shared(kNo);
  REQUIRE(p);
  CHECK((*p)->all_valid());
  CHECK(src->reads == 0);
}

}  // namespace test_page_evict
