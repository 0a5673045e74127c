// PagedMemory with lazy page groups (state/page_source.h): every access
// sees the bytes an eager install would give, pages are read only when
// touched, writes never reach the source's pages, and a page the source
// cannot supply reads as unknown and is reported by fault().
#include <doctest/doctest.h>

#include <map>
#include <vector>

#include "state/machine_state.h"
#include "state/paged_memory.h"

using namespace ttd;

namespace {

std::shared_ptr<Page> page_of(uint8_t fill, bool all_valid = true) {
  auto p = std::make_shared<Page>();
  std::memset(p->data, fill, kPageSize);
  std::memset(p->valid, all_valid ? 0xff : 0, sizeof p->valid);
  if (!all_valid) {  // only the first 16 bytes known, the rest zero
    std::memset(p->data + 16, 0, kPageSize - 16);
    p->valid[0] = 0xffff;
  }
  return p;
}

// Groups by id: rel -> page. Counts what was asked; `broken` pages fail.
struct FakeSource : PageSource {
  std::map<uint64_t, std::map<uint64_t, std::shared_ptr<Page>>> groups;
  std::map<std::pair<uint64_t, uint64_t>, bool> broken;
  int page_reads = 0;
  Result<std::shared_ptr<Page>> page_at(uint64_t id, uint64_t rel) override {
    ++page_reads;
    if (broken.count({id, rel})) return make_error_at("fake.ttdidx", 4242, "page blob checksum mismatch");
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

// Group 7 of id 70: pages 3 (0x11, all known) and 4 (0x22, 16 bytes known);
// group 9 of id 90: page 0 (0x33).
struct Fixture {
  std::shared_ptr<FakeSource> src = std::make_shared<FakeSource>();
  PagedMemory lazy, eager;
  uint64_t base7 = (uint64_t(7) << kPageGroupShift) * kPageSize;
  uint64_t base9 = (uint64_t(9) << kPageGroupShift) * kPageSize;
  Fixture() {
    src->groups[70][3] = page_of(0x11);
    src->groups[70][4] = page_of(0x22, false);
    src->groups[90][0] = page_of(0x33);
    LazyGroupRef refs[] = {{7, 70}, {9, 90}};
    lazy.set_page_source(src);
    lazy.install_lazy(refs, 2);
    eager.set_page((7 << kPageGroupShift) | 3, src->groups[70][3]);
    eager.set_page((7 << kPageGroupShift) | 4, src->groups[70][4]);
    eager.set_page(9 << kPageGroupShift, src->groups[90][0]);
  }
  // Equal bytes and validity over [addr, addr+len) in both.
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

TEST_CASE("lazy pages are read on first access only, with the bytes an eager install has") {
  Fixture f;
  CHECK(f.lazy.resident_page_count() == 0);
  CHECK(f.src->page_reads == 0);
  uint8_t b[4], v[4];
  CHECK(f.lazy.read(f.base7 + 3 * kPageSize + 100, b, v, 4) == 4);
  CHECK(b[0] == 0x11);
  CHECK(f.src->page_reads == 1);
  CHECK(f.lazy.resident_page_count() == 1);
  f.lazy.read(f.base7 + 3 * kPageSize, b, v, 4);
  CHECK(f.src->page_reads == 1);  // resident now
  // A page the group does not have: unknown, asked once.
  CHECK(f.lazy.read(f.base7 + 5 * kPageSize, b, v, 4) == 0);
  CHECK(f.lazy.read(f.base7 + 5 * kPageSize, b, v, 4) == 0);
  CHECK(f.src->page_reads == 2);
  // Outside every group: no question at all.
  CHECK(f.lazy.read(0x1000, b, v, 4) == 0);
  CHECK(f.src->page_reads == 2);
  f.same(f.base7, 8 * kPageSize);
  f.same(f.base9 - 8, 16);
  CHECK_FALSE(f.lazy.fault());
}

TEST_CASE("writes, fills and invalidations of lazy pages give the eager bytes and never change the source") {
  Fixture f;
  const uint64_t p4 = f.base7 + 4 * kPageSize;
  const uint8_t w[3] = {1, 2, 3};
  for (PagedMemory* m : {&f.lazy, &f.eager}) {
    m->write(p4 + 8, w, 3);             // inside the known 16 bytes and beyond
    m->write(p4 + 15, w, 3);
    m->invalidate(f.base7 + 3 * kPageSize + 10, 5);
    m->fill(f.base9 + 100, 4, 0x77);
    m->invalidate(f.base9, kPageSize);  // the whole page goes
  }
  f.same(f.base7, 8 * kPageSize);
  f.same(f.base9, kPageSize);
  CHECK(digest_of(f.lazy) == digest_of(f.eager));
  // The source's pages are untouched (the eager memory shared them too).
  CHECK(f.src->groups[70][4]->data[8] == 0x22);
  CHECK(f.src->groups[70][3]->valid[0] == ~0ull);
  CHECK(f.src->groups[90][0]->data[100] == 0x33);
  // A page dropped whole stays dropped: the group does not bring it back.
  uint8_t b, v;
  CHECK(f.lazy.read(f.base9, &b, &v, 1) == 0);
}

TEST_CASE("pages() and digests read every lazy page, copies share the lazy groups") {
  Fixture f;
  PagedMemory copy = f.lazy;
  CHECK(copy.page_count() == 3);
  CHECK(copy.lazy_group_count() == 0);
  CHECK(f.lazy.lazy_group_count() == 2);  // the original is still lazy
  CHECK(digest_of(copy) == digest_of(f.eager));
  CHECK(digest_of(f.lazy) == digest_of(f.eager));
  // A whole page replaced by set_page is not read from the source.
  Fixture g;
  g.lazy.set_page((7 << kPageGroupShift) | 3, page_of(0x44));
  g.eager.set_page((7 << kPageGroupShift) | 3, page_of(0x44));
  CHECK(g.src->page_reads == 0);
  g.same(g.base7, 8 * kPageSize);
}

TEST_CASE("install_lazy replaces everything the memory held") {
  Fixture f;
  const uint8_t w = 5;
  f.lazy.write(0x5000, &w, 1);
  f.lazy.write(f.base7 + 3 * kPageSize, &w, 1);
  LazyGroupRef refs[] = {{9, 90}};
  f.lazy.install_lazy(refs, 1);
  CHECK(f.lazy.resident_page_count() == 0);
  uint8_t b, v;
  CHECK(f.lazy.read(0x5000, &b, &v, 1) == 0);
  CHECK(f.lazy.read(f.base7 + 3 * kPageSize, &b, &v, 1) == 0);
  CHECK(f.lazy.read(f.base9, &b, &v, 1) == 1);
  CHECK(b == 0x33);
}

TEST_CASE("a page the source cannot read is unknown and reported by the read, then asked again") {
  Fixture f;
  f.src->broken[{70, 3}] = true;
  uint8_t b[4], v[4];
  CHECK(f.lazy.read(f.base9, b, v, 4) == 4);  // other pages are fine
  CHECK_FALSE(f.lazy.fault());
  CHECK(f.lazy.read(f.base7 + 3 * kPageSize, b, v, 4) == 0);
  REQUIRE(f.lazy.fault());
  const std::string msg = f.lazy.fault()->to_string();
  CHECK(msg.find("fake.ttdidx") != std::string::npos);
  CHECK(msg.find("4242") != std::string::npos);
  CHECK(msg.find("0xe03000") != std::string::npos);  // the page's address
  // What the front ends call: the same failure as an error value.
  auto checked = f.lazy.read_checked(f.base7 + 3 * kPageSize, b, v, 4);
  REQUIRE_FALSE(checked.ok());
  CHECK(checked.error().to_string().find("4242") != std::string::npos);
  CHECK(f.lazy.read_checked(f.base9, b, v, 4).ok());  // a fault elsewhere is not this read's
  f.lazy.clear_fault();
  f.src->broken.clear();  // e.g. the cache had a bad copy: asked again
  CHECK(f.lazy.read(f.base7 + 3 * kPageSize, b, v, 4) == 4);
  CHECK_FALSE(f.lazy.fault());
  // A write into an unreadable page does not read it (an overlay keeps
  // the write); the read that needs the page reports it, reads the page as
  // unknown, and a later read that succeeds sees the write over the page.
  Fixture g;
  g.src->broken[{70, 4}] = true;
  const uint8_t w = 9;
  g.lazy.write(g.base7 + 4 * kPageSize, &w, 1);
  CHECK_FALSE(g.lazy.fault());
  CHECK(g.src->page_reads == 0);
  CHECK(g.lazy.read(g.base7 + 4 * kPageSize, b, v, 4) == 0);
  CHECK(g.lazy.fault());
  g.src->broken.clear();
  g.lazy.clear_fault();
  CHECK(g.lazy.read(g.base7 + 4 * kPageSize, b, v, 4) == 4);
  CHECK(b[0] == 9);
  CHECK(b[1] == 0x22);
  CHECK_FALSE(g.lazy.fault());
  // pages() keeps the unreadable page lazy and says so.
  Fixture h;
  h.src->broken[{90, 0}] = true;
  CHECK(h.lazy.page_count() == 2);
  CHECK(h.lazy.fault());
  CHECK(h.lazy.lazy_group_count() == 1);
}
