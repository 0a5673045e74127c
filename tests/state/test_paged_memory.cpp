// PagedMemory: byte-granular validity across pages, and copy-on-write page
// sharing that keyframes rely on (a copy must never see later writes).
#include <doctest/doctest.h>

#include <algorithm>
#include <numeric>
#include <vector>

#include "state/paged_memory.h"

using namespace ttd;

namespace {
std::vector<uint8_t> iota_bytes(size_t n, uint8_t start = 1) {
  std::vector<uint8_t> v(n);
  std::iota(v.begin(), v.end(), start);
  return v;
}
}  // namespace

TEST_CASE("unwritten memory is unknown") {
  PagedMemory m;
  uint8_t buf[8] = {9, 9, 9, 9, 9, 9, 9, 9}, valid[8];
  CHECK(m.read(0x1000, buf, valid, 8) == 0);
  for (int i = 0; i < 8; ++i) {
    CHECK(buf[i] == 0);
    CHECK(valid[i] == 0);
  }
  CHECK_FALSE(m.all_known(0x1000, 1));
  CHECK(m.page_count() == 0);
}

TEST_CASE("write and read back across a page boundary") {
  PagedMemory m;
  auto data = iota_bytes(100);
  uint64_t addr = 2 * kPageSize - 40;
  m.write(addr, data.data(), data.size());
  CHECK(m.page_count() == 2);
  std::vector<uint8_t> out(100), valid(100);
  CHECK(m.read(addr, out.data(), valid.data(), 100) == 100);
  CHECK(out == data);
  for (uint8_t v : valid) CHECK(v == 1);
  CHECK(m.all_known(addr, 100));
  CHECK_FALSE(m.all_known(addr - 1, 101));
  CHECK_FALSE(m.all_known(addr, 101));
  // Partial overlap: known count is exact.
  std::vector<uint8_t> wide(140);
  CHECK(m.read(addr - 20, wide.data(), nullptr, 140) == 100);
  CHECK(wide[19] == 0);
  CHECK(wide[20] == 1);
}

TEST_CASE("writes spanning many pages") {
  PagedMemory m;
  auto data = iota_bytes(3 * kPageSize + 17);
  m.write(kPageSize / 2, data.data(), data.size());
  CHECK(m.page_count() == 4);
  std::vector<uint8_t> out(data.size());
  CHECK(m.read(kPageSize / 2, out.data(), nullptr, out.size()) == data.size());
  CHECK(out == data);
}

TEST_CASE("fill marks bytes known") {
  PagedMemory m;
  m.fill(0x10000, 2 * kPageSize, 0);
  CHECK(m.all_known(0x10000, 2 * kPageSize));
  uint8_t b = 1;
  m.read(0x10000 + 5, &b, nullptr, 1);
  CHECK(b == 0);
  m.fill(0x20003, 5, 0xab);
  uint8_t out[7], valid[7];
  CHECK(m.read(0x20002, out, valid, 7) == 5);
  CHECK(valid[0] == 0);
  CHECK(out[1] == 0xab);
  CHECK(valid[6] == 0);
  // Writing into a zero-filled page only changes that page.
  const uint8_t one = 1;
  m.write(0x10000, &one, 1);
  m.read(0x10000 + kPageSize, &b, nullptr, 1);
  CHECK(b == 0);
  PagedMemory fresh;
  fresh.fill(0x50000, kPageSize, 0);
  fresh.read(0x50000, &b, nullptr, 1);
  CHECK(b == 0);
}

TEST_CASE("invalidate clears validity and drops empty pages") {
  PagedMemory m;
  auto data = iota_bytes(64);
  m.write(0x3000, data.data(), 64);
  m.invalidate(0x3000 + 10, 4);
  uint8_t out[64], valid[64];
  CHECK(m.read(0x3000, out, valid, 64) == 60);
  CHECK(valid[9] == 1);
  CHECK(valid[10] == 0);
  CHECK(out[10] == 0);  // unknown reads as 0
  CHECK(valid[13] == 0);
  CHECK(valid[14] == 1);
  m.invalidate(0x3000, kPageSize);
  CHECK(m.page_count() == 0);
  // Invalidating unmapped memory across pages is harmless.
  m.invalidate(0x100000, 5 * kPageSize);
  CHECK(m.page_count() == 0);
}

TEST_CASE("invalidate remembers a missing page only until that page appears") {
  // invalidate() skips the map lookup for the page it last found missing;
  // every way of creating that page must make it look again.
  uint8_t b = 7, out = 0, valid = 0;
  SUBCASE("created by a write") {
    PagedMemory m;
    m.invalidate(0x7000, 1);  // missing: remembered
    m.write(0x7000, &b, 1);
    m.write(0x9000, &b, 1);  // the write cache moves on to another page
    m.write(0xb000, &b, 1);
    m.invalidate(0x7000, 1);
    CHECK(m.read(0x7000, &out, &valid, 1) == 0);
  }
  SUBCASE("installed by set_page") {
    PagedMemory m, other;
    other.write(0x7000, &b, 1);
    other.write(0x7001, &b, 1);
    m.invalidate(0x7000, 1);
    m.set_page(7, std::const_pointer_cast<Page>(other.pages().at(7)));
    m.invalidate(0x7000, 1);
    CHECK(m.read(0x7000, &out, &valid, 1) == 0);
    CHECK(m.read(0x7001, &out, &valid, 1) == 1);
    CHECK(other.read(0x7000, &out, &valid, 1) == 1);  // the shared page was copied, not changed
  }
  SUBCASE("brought in by assignment or fill") {
    PagedMemory m, other;
    other.write(0x7000, &b, 1);
    m.invalidate(0x7000, 1);
    m = other;
    m.invalidate(0x7000, 1);
    CHECK(m.read(0x7000, &out, &valid, 1) == 0);
    m.invalidate(0x8000, 1);
    m.fill(0x8000, 16, 0);
    m.invalidate(0x8000, 1);
    CHECK(m.read(0x8000, &out, &valid, 1) == 0);
    CHECK(m.read(0x8001, &out, &valid, 1) == 1);
  }
}

TEST_CASE("copies share pages, a write unshares only the written page") {
  PagedMemory a;
  auto data = iota_bytes(2 * kPageSize);
  a.write(0, data.data(), data.size());
  PagedMemory b = a;
  CHECK(b.pages().at(0).get() == a.pages().at(0).get());
  CHECK(b.pages().at(1).get() == a.pages().at(1).get());

  const uint8_t x = 0xee;
  b.write(5, &x, 1);
  CHECK(b.pages().at(0).get() != a.pages().at(0).get());
  CHECK(b.pages().at(1).get() == a.pages().at(1).get());
  uint8_t va = 0, vb = 0;
  a.read(5, &va, nullptr, 1);
  b.read(5, &vb, nullptr, 1);
  CHECK(va == data[5]);
  CHECK(vb == 0xee);
}

TEST_CASE("copy-on-write survives the last-written-page cache") {
  // a writes page 0 (now cached as writable), then is copied; the next
  // write through either side must not leak into the other.
  PagedMemory a;
  const uint8_t one = 1, two = 2, three = 3;
  a.write(0x10, &one, 1);
  PagedMemory b = a;
  a.write(0x10, &two, 1);
  uint8_t v = 0;
  b.read(0x10, &v, nullptr, 1);
  CHECK(v == 1);
  b.write(0x10, &three, 1);
  a.read(0x10, &v, nullptr, 1);
  CHECK(v == 2);

  // Same through assignment.
  PagedMemory c;
  c = a;
  a.write(0x10, &one, 1);
  c.read(0x10, &v, nullptr, 1);
  CHECK(v == 2);
}

TEST_CASE("pages taken out for a keyframe stay frozen") {
  PagedMemory m;
  const uint8_t one = 1, two = 2;
  m.write(0x20, &one, 1);
  std::shared_ptr<Page> kept = m.pages().at(0);  // what a keyframe stores
  m.write(0x20, &two, 1);
  CHECK(kept->data[0x20] == 1);
  uint8_t v = 0;
  m.read(0x20, &v, nullptr, 1);
  CHECK(v == 2);
}

TEST_CASE("set_page installs shared pages that later writes copy") {
  PagedMemory src;
  const uint8_t seven = 7, eight = 8;
  src.write(kPageSize * 3 + 1, &seven, 1);
  PagedMemory dst;
  dst.set_page(3, src.pages().at(3));
  uint8_t v = 0;
  dst.read(kPageSize * 3 + 1, &v, nullptr, 1);
  CHECK(v == 7);
  dst.write(kPageSize * 3 + 1, &eight, 1);
  src.read(kPageSize * 3 + 1, &v, nullptr, 1);
  CHECK(v == 7);
  dst.set_page(3, nullptr);
  CHECK(dst.page_count() == 0);
}

TEST_CASE("reads at the top of the address space") {
  PagedMemory m;
  const uint8_t d[4] = {1, 2, 3, 4};
  m.write(~0ull - 3, d, 4);
  uint8_t out[4];
  CHECK(m.read(~0ull - 3, out, nullptr, 4) == 4);
  CHECK(out[3] == 4);
  m.invalidate(~0ull - 3, 4);
  CHECK(m.page_count() == 0);
}

TEST_CASE("short writes into the last written page (the fast path) keep bytes and validity exact") {
  // Random writes of 1..64 bytes over two pages and a byte model: every
  // offset and length mix (within one validity word, across two words,
  // across the page boundary) must read back as the model says.
  PagedMemory m;
  std::vector<int> model(2 * kPageSize, -1);  // -1: unknown
  uint64_t seed = 12345;
  auto next = [&] { return seed = seed * 6364136223846793005ull + 1442695040888963407ull, seed >> 33; };
  const uint64_t base = 0x7000;
  for (int i = 0; i < 4000; ++i) {
    uint64_t off = next() % (2 * kPageSize - 64), len = 1 + next() % 64;
    std::vector<uint8_t> v(len);
    for (auto& b : v) b = uint8_t(next());
    m.write(base + off, v.data(), len);
    for (uint64_t k = 0; k < len; ++k) model[off + k] = v[k];
    if (i % 500 == 0) {
      PagedMemory snapshot = m;  // shares the pages: the next write must copy
      (void)snapshot;
    }
  }
  std::vector<uint8_t> got(2 * kPageSize), valid(2 * kPageSize);
  m.read(base, got.data(), valid.data(), got.size());
  int mismatches = 0;
  for (size_t k = 0; k < model.size(); ++k) {
    bool known = model[k] >= 0;
    if (bool(valid[k]) != known || (known && got[k] != uint8_t(model[k]))) ++mismatches;
  }
  CHECK(mismatches == 0);
}

TEST_CASE("the change log names every page created, copied or dropped while it is on") {
  PagedMemory m;
  uint8_t b = 1;
  m.write(0x1000, &b, 1);  // before the log: not recorded
  m.start_change_log();
  CHECK(m.changed_pages().empty());
  m.write(0x1001, &b, 1);  // unshared already: no change of page
  CHECK(m.changed_pages().empty());
  PagedMemory copy = m;  // now shared: the next write copies
  m.write(0x1002, &b, 1);
  m.write(0x5000, &b, 1);  // a new page
  m.invalidate(0x5000, 1);  // dropped again
  std::vector<uint64_t> log = m.changed_pages();
  CHECK(std::count(log.begin(), log.end(), 1u) == 1);
  CHECK(std::count(log.begin(), log.end(), 5u) >= 2);
  CHECK_FALSE(m.change_log_overflowed());
  uint8_t got = 0;
  copy.read(0x1002, &got, nullptr, 1);
  CHECK(got == 0);  // the copy never sees the later write
}
