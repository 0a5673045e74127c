// Overlays of lazy pages (state/paged_memory.h): writes, partial fills and
// invalidations of a lazy page not read yet read nothing from the source;
// the first read merges them over the source's page and must give exactly
// what the same changes made to an eagerly installed memory give.
#include <doctest/doctest.h>

#include <map>
#include <random>
#include <vector>

#include "state/machine_state.h"
#include "state/paged_memory.h"

// A namespace of its own: CI's unity build compiles it with its suite's other files.
namespace test_lazy_overlay {

using namespace ttd;

namespace {

struct CountingSource : PageSource {
  std::map<uint64_t, std::map<uint64_t, std::shared_ptr<Page>>> groups;
  bool broken = false;
  int page_reads = 0;
  Result<std::shared_ptr<Page>> page_at(uint64_t id, uint64_t rel) override {
    ++page_reads;
    if (broken) return make_error_at("overlay.ttdidx", 77, "page blob checksum mismatch");
    auto& g = groups.at(id);
    auto it = g.find(rel);
    return it == g.end() ? std::shared_ptr<Page>() : it->second;
  }
  Result<std::vector<uint64_t>> page_numbers(uint64_t id) override {
    std::vector<uint64_t> out;
    for (const auto& [rel, p] : groups.at(id)) out.push_back(rel);
    return out;
  }
};

constexpr uint64_t kGroup = 5, kId = 50;
uint64_t page_addr(uint64_t rel) { return ((kGroup << kPageGroupShift) | rel) << kPageShift; }

// Pages 0..3 of group 5: 0 all known, 1 half known, 2 absent, 3 all known.
struct Pair {
  std::shared_ptr<CountingSource> src = std::make_shared<CountingSource>();
  PagedMemory lazy, eager;
  Pair() {
    for (uint64_t rel : {0, 1, 3}) {
      auto p = std::make_shared<Page>();
      for (uint64_t i = 0; i < kPageSize; ++i) p->data[i] = uint8_t(rel * 31 + i * 7 + 1);
      std::memset(p->valid, 0xff, sizeof p->valid);
      if (rel == 1) {
        std::memset(p->data + kPageSize / 2, 0, kPageSize / 2);
        std::memset(p->valid + kPageSize / 128, 0, sizeof p->valid / 2);
      }
      src->groups[kId][rel] = p;
      eager.set_page((kGroup << kPageGroupShift) | rel, p);
    }
    LazyGroupRef ref{kGroup, kId};
    lazy.set_page_source(src);
    lazy.install_lazy(&ref, 1);
  }
  void same(uint64_t addr, uint64_t len) {
    std::vector<uint8_t> a(len), av(len), b(len), bv(len);
    CHECK(lazy.read(addr, a.data(), av.data(), len) == eager.read(addr, b.data(), bv.data(), len));
    CHECK(a == b);
    CHECK(av == bv);
  }
};

uint64_t digest_of(const PagedMemory& m) {
  MachineState st(arch_desc(ArchId::X86_64));
  st.process(1).memory = m;
  return st.digest();
}

}  // namespace

TEST_CASE("changes to unread lazy pages read no page, the first read merges them as an eager memory has them") {
  std::mt19937_64 rng(17);
  for (int round = 0; round < 40; ++round) {
    Pair p;
    // Random writes, fills and invalidations over pages 0..3 (crossing
    // page ends), then reads; the source is asked only by the reads.
    const int ops = 1 + int(rng() % 12);
    for (int i = 0; i < ops; ++i) {
      const uint64_t addr = page_addr(0) + rng() % (4 * kPageSize - 64);
      const uint64_t len = 1 + rng() % (rng() % 4 == 0 ? 3 * kPageSize : 40);
      const uint64_t n = std::min(len, page_addr(4) - addr);
      std::vector<uint8_t> bytes(n);
      for (auto& b : bytes) b = uint8_t(rng());
      const uint64_t op = rng() % 3;
      for (PagedMemory* m : {&p.lazy, &p.eager}) {
        switch (op) {
          case 0: m->write(addr, bytes.data(), n); break;
          case 1: m->invalidate(addr, n); break;
          default: m->fill(addr, n, uint8_t(round)); break;
        }
      }
    }
    CHECK(p.src->page_reads == 0);
    CHECK(p.lazy.overlay_count() > 0);
    if (round % 2) {
      for (uint64_t rel = 0; rel < 4; ++rel) p.same(page_addr(rel), kPageSize);
      p.same(page_addr(0) + 100, 2 * kPageSize);
    }
    CHECK(digest_of(p.lazy) == digest_of(p.eager));
    p.same(page_addr(0), 4 * kPageSize);
    CHECK(p.lazy.overlay_count() == 0);
    CHECK_FALSE(p.lazy.fault());
  }
}

TEST_CASE("an overlay: write, then invalidate, then write again, a page made wholly unknown is gone") {
  Pair p;
  const uint8_t a[8] = {1, 2, 3, 4, 5, 6, 7, 8}, b[2] = {9, 9};
  for (PagedMemory* m : {&p.lazy, &p.eager}) {
    m->write(page_addr(0) + 10, a, 8);
    m->invalidate(page_addr(0) + 12, 4);
    m->write(page_addr(0) + 13, b, 2);
    m->invalidate(page_addr(3), kPageSize);  // gone whole
    m->write(page_addr(2) + 5, a, 3);         // a page the source does not have
  }
  CHECK(p.src->page_reads == 0);
  p.same(page_addr(0), 4 * kPageSize);
  uint8_t x, v;
  CHECK(p.lazy.read(page_addr(3) + 7, &x, &v, 1) == 0);
  CHECK(p.lazy.resident_page_count() == p.eager.resident_page_count());
}

TEST_CASE("copies of a memory with overlays do not share their writes, set_page and install_lazy drop overlays") {
  Pair p;
  const uint8_t one = 1, two = 2;
  p.lazy.write(page_addr(0), &one, 1);
  PagedMemory copy = p.lazy;
  copy.write(page_addr(0), &two, 1);  // the cached overlay page is shared: copied first
  p.lazy.write(page_addr(0) + 1, &two, 1);
  uint8_t x[2], v[2];
  REQUIRE(p.lazy.read(page_addr(0), x, v, 2) == 2);
  CHECK(x[0] == 1);
  CHECK(x[1] == 2);
  REQUIRE(copy.read(page_addr(0), x, v, 2) == 2);
  CHECK(x[0] == 2);
  CHECK(x[1] == p.src->groups[kId][0]->data[1]);
  // A whole page set over an overlay replaces it.
  p.lazy.write(page_addr(1), &two, 1);
  p.lazy.set_page((kGroup << kPageGroupShift) | 1, nullptr);
  CHECK(p.lazy.read(page_addr(1), x, v, 1) == 0);
  // install_lazy forgets every overlay.
  p.lazy.write(page_addr(3), &two, 1);
  LazyGroupRef ref{kGroup, kId};
  p.lazy.install_lazy(&ref, 1);
  CHECK(p.lazy.overlay_count() == 0);
  REQUIRE(p.lazy.read(page_addr(3), x, v, 1) == 1);
  CHECK(x[0] == p.src->groups[kId][3]->data[0]);
}

TEST_CASE("pages() with an overlay whose page cannot be read keeps it, reports it, and merges it later") {
  Pair p;
  const uint8_t w = 0xee;
  p.lazy.write(page_addr(2) + 3, &w, 1);  // the source has no page 2
  p.lazy.write(page_addr(0) + 3, &w, 1);
  p.eager.write(page_addr(2) + 3, &w, 1);
  p.eager.write(page_addr(0) + 3, &w, 1);
  p.src->broken = true;
  (void)p.lazy.pages();
  CHECK(p.lazy.fault());
  CHECK(p.lazy.overlay_count() == 2);
  CHECK(p.lazy.lazy_group_count() == 1);
  p.src->broken = false;
  p.lazy.clear_fault();
  (void)p.lazy.pages();
  CHECK(digest_of(p.lazy) == digest_of(p.eager));
  CHECK(p.lazy.overlay_count() == 0);
  CHECK(p.lazy.lazy_group_count() == 0);
  CHECK_FALSE(p.lazy.fault());
}

}  // namespace test_lazy_overlay
