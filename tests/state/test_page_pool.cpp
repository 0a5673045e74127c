// state/page_pool.h: pages from 2 MiB slabs. A page is all unknown or an
// exact copy whatever block it reuses, may be released on any thread, and
// empty slabs go back to the system (one spare kept).
#include <doctest/doctest.h>

#include <cstring>
#include <thread>
#include <vector>

#include "state/page_pool.h"

using namespace ttd;

namespace {
bool all_zero(const Page& p) {
  static const Page zero{};
  return std::memcmp(&p, &zero, sizeof(Page)) == 0;
}
void scribble(Page& p, uint8_t v) {
  std::memset(p.data, v, sizeof p.data);
  std::memset(p.valid, v, sizeof p.valid);
}
// More pages than two slabs hold.
constexpr size_t kMany = 1200;
}  // namespace

TEST_CASE("page pool: a new page is all unknown even in a reused block") {
  std::vector<std::shared_ptr<Page>> pages;
  for (size_t i = 0; i < kMany; ++i) {
    pages.push_back(make_page());
    CHECK(reinterpret_cast<uintptr_t>(pages.back().get()) % alignof(Page) == 0);
    scribble(*pages.back(), 0xa5);
  }
  // Every other one back, so later pages take released blocks.
  for (size_t i = 0; i < kMany; i += 2) pages[i].reset();
  for (size_t i = 0; i < kMany; i += 2) {
    pages[i] = make_page();
    CHECK(all_zero(*pages[i]));
  }
  pages.clear();
  // All released: the spare slab (dirty) hands out blocks again from its start.
  for (size_t i = 0; i < kMany; ++i) {
    pages.push_back(make_page());
    REQUIRE(all_zero(*pages.back()));
    scribble(*pages.back(), 0x5a);
  }
}

TEST_CASE("page pool: a copy is the page, byte for byte") {
  auto a = make_page();
  for (size_t i = 0; i < sizeof a->data; ++i) a->data[i] = uint8_t(i * 7);
  a->valid[3] = 0x0123456789abcdefull;
  auto b = make_page_copy(*a);
  CHECK(b.get() != a.get());
  CHECK(std::memcmp(a.get(), b.get(), sizeof(Page)) == 0);
  auto c = make_page_from_bytes(a.get());
  CHECK(std::memcmp(a.get(), c.get(), sizeof(Page)) == 0);
}

TEST_CASE("page pool: pages released on another thread, empty slabs go back") {
  const PagePoolStats before = page_pool_stats();
  std::vector<std::shared_ptr<Page>> pages;
  for (size_t i = 0; i < 3 * kMany; ++i) pages.push_back(make_page());
  const PagePoolStats full = page_pool_stats();
  CHECK(full.live_blocks == before.live_blocks + 3 * kMany);
  CHECK(full.slabs >= before.slabs + 3 * kMany / 460);
  std::thread other([moved = std::move(pages)]() mutable { moved.clear(); });
  other.join();
  const PagePoolStats after = page_pool_stats();
  CHECK(after.live_blocks == before.live_blocks);
  // What held only the released pages is unmapped, but for one spare.
  CHECK(after.slabs <= before.slabs + 1);
}

TEST_CASE("page pool: two threads allocating and releasing at once") {
  const PagePoolStats before = page_pool_stats();
  auto work = [](uint8_t v) {
    std::vector<std::shared_ptr<Page>> keep;
    for (int round = 0; round < 20; ++round) {
      for (int i = 0; i < 200; ++i) {
        auto p = make_page();
        CHECK(all_zero(*p));
        scribble(*p, v);
        keep.push_back(std::move(p));
      }
      keep.erase(keep.begin(), keep.begin() + 150);
    }
    for (auto& p : keep) CHECK(p->data[100] == v);
  };
  std::thread a(work, uint8_t(1)), b(work, uint8_t(2));
  a.join();
  b.join();
  CHECK(page_pool_stats().live_blocks == before.live_blocks);
}
