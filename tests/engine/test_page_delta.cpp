// Page versions stored as deltas (index version 10, engine/page_delta_codec.h):
// the codec round-trips and refuses every corruption; the builder's store
// bounds chains; an index of a trace that writes a few bytes into many
// pages stores those bytes, not pages, and seeks reach the linear-replay
// state; a corrupt base, a delta past the page, a cycle and an overlong
// chain are errors naming the index file and the blob's offset.
#include <doctest/doctest.h>

#include <cstring>
#include <map>
#include <random>

#include "engine/cursor.h"
#include "engine/index_file.h"
#include "engine/page_cache.h"
#include "engine/page_delta_codec.h"
#include "engine/page_version_store.h"
#include "crafted_blob_check.h"
#include "index_file_damage.h"
#include "temp_synthetic_trace.h"

using namespace ttd;

namespace {
std::shared_ptr<Page> random_page(uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto p = std::make_shared<Page>();
  for (auto& b : p->data) b = uint8_t(rng());
  for (auto& v : p->valid) v = ~uint64_t(0);
  return p;
}
bool same(const Page& a, const Page& b) { return std::memcmp(&a, &b, sizeof(Page)) == 0; }
const char* apply_all(const std::vector<uint8_t>& d, uint64_t own_id, Page& page) {
  PageDeltaHead h;
  if (const char* e = parse_page_delta(d.data(), d.size(), own_id, h)) return e;
  return apply_page_delta(d.data(), d.size(), h, page);
}
std::vector<uint8_t> bytes_of(const ByteWriter& w) { return std::vector<uint8_t>(w.data(), w.data() + w.size()); }
// Walks back from version `cur` to a whole page as the reader does; returns
// the versions passed (newest first) and leaves `cur` at the whole page.
template <class Tickets>
std::vector<uint64_t> delta_chain(const std::vector<std::vector<uint8_t>>& blobs, const Tickets& tickets, uint64_t& cur) {
  std::vector<uint64_t> chain;
  while (blobs[tickets[cur]].size() != sizeof(Page)) {
    chain.push_back(cur);
    PageDeltaHead h;
    const auto& b = blobs[tickets[cur]];
    REQUIRE(parse_page_delta(b.data(), b.size(), cur, h) == nullptr);
    REQUIRE(!h.zero_base);
    cur = h.base_id;
  }
  return chain;
}
}  // namespace

TEST_CASE("page delta: round trip against a page and against the zero page") {
  auto base = random_page(1);
  auto next = std::make_shared<Page>(*base);
  for (size_t i : {0, 1, 2, 7, 100, 101, 4000, 4095}) next->data[i] ^= 0x5a;
  next->valid[63] &= ~uint64_t(1) << 63;  // a byte made unknown: the bitmap is part of the page
  ByteWriter w;
  REQUIRE(encode_page_delta(*next, base.get(), 3 + 1, w));
  CHECK(w.size() < 64);
  Page back = *base;
  CHECK(apply_all(bytes_of(w), 9, back) == nullptr);
  CHECK(same(back, *next));
  PageDeltaHead h;
  REQUIRE(parse_page_delta(w.data(), w.size(), 9, h) == nullptr);
  CHECK(!h.zero_base);
  CHECK(h.base_id == 3);

  // A fresh page with a few bytes written: a delta against the zero page.
  Page fresh{};
  fresh.data[4095] = 1;
  fresh.valid[63] = uint64_t(1) << 63;
  ByteWriter z;
  REQUIRE(encode_page_delta(fresh, nullptr, 0, z));
  CHECK(z.size() < 16);
  Page zback{};
  CHECK(apply_all(bytes_of(z), 0, zback) == nullptr);
  CHECK(same(zback, fresh));
  CHECK(check_page_blob(z.data(), z.size(), 0) == nullptr);

  // Nothing in common (bytes and bitmap): not shorter than a page, so
  // stored whole.
  auto other = random_page(3);
  for (auto& v : other->valid) v = 0x5555555555555555ull;
  ByteWriter full;
  CHECK(!encode_page_delta(*random_page(2), other.get(), 1, full));
}

TEST_CASE("page delta: every corruption is refused, never applied out of bounds") {
  Page page{};
  auto refuse = [&](std::vector<uint8_t> d, uint64_t own_id, const char* want) {
    const char* e = apply_all(d, own_id, page);
    REQUIRE(e != nullptr);
    CHECK(std::string(e).find(want) != std::string::npos);
    CHECK(check_page_blob(d.data(), d.size(), own_id) != nullptr);
  };
  refuse({6, 0, 0, 1}, 5, "cycle");                 // base id 5: itself
  refuse({10, 0, 0, 1}, 5, "cycle");                // base id 9: newer than the delta
  refuse({0x80}, 5, "cut short");                   // base varint cut short
  refuse({0, 0x80, 0x24, 0, 1}, 5, "past the page");  // gap 4608: at the end of the page
  refuse({0, 0xff, 0x23, 1, 1, 2}, 5, "past the page");  // 2 bytes at 4607
  refuse({0, 0, 0x80, 0x24}, 5, "past the page");   // 4609 bytes
  refuse({0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0, 1}, 5, "past the page");  // huge gap
  refuse({0, 0, 9, 1, 2, 3}, 5, "cut short");       // 10 bytes said, 3 there
  refuse({0, 0}, 5, "cut short");                  // a run without its length
  std::vector<uint8_t> large(sizeof(Page) + 1, 0);
  CHECK(check_page_blob(large.data(), large.size(), 5) != nullptr);
  std::vector<uint8_t> whole(sizeof(Page), 0xee);
  CHECK(check_page_blob(whole.data(), whole.size(), 5) == nullptr);
  // Runs in order fill the page exactly.
  std::vector<uint8_t> d = {0, 0, 0x80, 0x10};  // zero base; 2049 bytes at 0
  d.resize(d.size() + 2049, 1);
  d.insert(d.end(), {0x86, 0x0f, 0});  // 1 byte at 2049 + 1926 = 3975
  d.push_back(2);
  CHECK(apply_all(d, 5, page) == nullptr);
  CHECK(page.data[2048] == 1);
  CHECK(page.data[3975] == 2);
}

TEST_CASE("page delta: the builder's store bounds chains and restores every version") {
  PageVersionStore store;
  std::vector<std::vector<uint8_t>> blobs;  // by ticket
  std::vector<bool> whole;
  auto put_whole = [&](const std::shared_ptr<Page>& p) {
    auto* b = reinterpret_cast<const uint8_t*>(p.get());
    blobs.emplace_back(b, b + sizeof(Page));
    return uint64_t(blobs.size() - 1);
  };
  auto put_delta = [&](const uint8_t* d, size_t n) {
    blobs.emplace_back(d, d + n);
    return uint64_t(blobs.size() - 1);
  };
  std::vector<std::shared_ptr<Page>> versions;
  auto page = random_page(7);
  const Page* prev = nullptr;
  uint64_t prev_id = 0;
  std::shared_ptr<Page> keep;
  for (int v = 0; v < 100; ++v) {
    auto next = std::make_shared<Page>(*page);
    next->data[(v * 37) % 4096] ^= uint8_t(v + 1);
    const uint64_t id = store.id_of(next, prev, prev_id, put_whole, put_delta);
    CHECK(id == uint64_t(v));
    versions.push_back(next);
    keep = next;
    prev = keep.get();
    prev_id = id;
    page = next;
  }
  // The same content again is the same id.
  CHECK(store.id_of(std::make_shared<Page>(*versions[40]), prev, prev_id, put_whole, put_delta) == 40);
  REQUIRE(store.tickets().size() == 100);
  size_t deltas = 0;
  for (uint64_t id = 0; id < 100; ++id) {
    // Restore as the reader does: walk back to a whole page.
    uint64_t cur = id;
    std::vector<uint64_t> chain = delta_chain(blobs, store.tickets(), cur);
    CHECK(chain.size() <= kMaxPageDeltaChain);
    deltas += !chain.empty();
    Page p;
    std::memcpy(&p, blobs[store.tickets()[cur]].data(), sizeof(Page));
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) REQUIRE(apply_all(blobs[store.tickets()[*it]], *it, p) == nullptr);
    CHECK(same(p, *versions[id]));
  }
  // One whole page: the first. Every kMaxPageDeltaChain + 1 versions a
  // delta against it (its anchor) starts the chain again (index version 11).
  CHECK(deltas == 99);
}

TEST_CASE("page delta: anchored deltas replace whole copies until the changes add up to half a page") {
  // Each version changes 64 more bytes of the page (different ones), so a
  // delta against the chain's anchor grows by 64 bytes a version.
  PageVersionStore store;
  std::vector<std::vector<uint8_t>> blobs;  // by ticket
  auto put_whole = [&](const std::shared_ptr<Page>& p) {
    auto* b = reinterpret_cast<const uint8_t*>(p.get());
    blobs.emplace_back(b, b + sizeof(Page));
    return uint64_t(blobs.size() - 1);
  };
  auto put_delta = [&](const uint8_t* d, size_t n) {
    blobs.emplace_back(d, d + n);
    return uint64_t(blobs.size() - 1);
  };
  constexpr int kVersions = 200;
  std::vector<std::shared_ptr<Page>> versions;
  std::shared_ptr<Page> prev;
  uint64_t prev_id = 0;
  for (int v = 0; v < kVersions; ++v) {
    auto next = prev ? std::make_shared<Page>(*prev) : random_page(11);
    for (int k = 0; k < 64; ++k) next->data[(v * 64 + k) % 4096] ^= uint8_t(v + k + 1);
    const uint64_t id = store.id_of(next, prev.get(), prev_id, put_whole, put_delta);
    REQUIRE(id == uint64_t(v));
    versions.push_back(next);
    prev = next;
    prev_id = id;
  }
  size_t whole = 0;
  for (uint64_t id = 0; id < uint64_t(kVersions); ++id) {
    uint64_t cur = id;
    std::vector<uint64_t> chain = delta_chain(blobs, store.tickets(), cur);
    CHECK(chain.size() <= kMaxPageDeltaChain);
    if (chain.empty()) {
      ++whole;
    } else {
      CHECK(blobs[store.tickets()[chain.back()]].size() < PageVersionStore::kMaxAnchoredDelta);
    }
    Page p;
    std::memcpy(&p, blobs[store.tickets()[cur]].data(), sizeof(Page));
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) REQUIRE(apply_all(blobs[store.tickets()[*it]], *it, p) == nullptr);
    CHECK(same(p, *versions[id]));
  }
  // Fewer whole copies than one per kMaxPageDeltaChain + 1 versions (index
  // version 10), more than one: the half-page limit starts new anchors.
  CHECK(whole < size_t(kVersions) / (kMaxPageDeltaChain + 1));
  CHECK(whole > 1);
}

namespace {
// A loop that writes one byte at a time all over a 16-page buffer.
test::SynthTrace scattered_writes(uint64_t steps) {
  test::SynthTrace synth = test::make_synthetic(steps, 1, 11);
  const uint64_t heap = 0x40000000;
  synth.initial.push_back({test::SynthEffect::Map, 1, 0, heap, std::vector<uint8_t>(16 * 4096, 0)});
  uint64_t x = 1;
  for (auto& s : synth.steps) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    s.effects.push_back({test::SynthEffect::Write, 1, 0, heap + ((x >> 33) & 0xffff), {uint8_t(x >> 20)}});
  }
  return synth;
}
struct StoredPage {
  BlobRef ref;
  std::string raw;
};
StoredPage stored_page(const IndexFile& idx, uint64_t id) {
  StoredPage p;
  REQUIRE(idx.page_ref(id, p.ref));
  REQUIRE(idx.read_blob(p.ref, p.raw));
  return p;
}
}  // namespace

TEST_CASE("page delta: scattered writes cost their bytes, and seeks reach the linear-replay state") {
  test::TempSynthTrace tt(scattered_writes(4000));
  auto t = Trace::open(tt.path, tt.options(64));
  REQUIRE(t.ok());
  const IndexFile& idx = (*t)->index();
  uint64_t deltas = 0, stored = 0;
  for (uint64_t id = 0; id < idx.page_count(); ++id) {
    StoredPage p = stored_page(idx, id);
    CHECK(check_page_blob(reinterpret_cast<const uint8_t*>(p.raw.data()), p.raw.size(), id) == nullptr);
    deltas += p.raw.size() < sizeof(Page);
    stored += p.raw.size();
  }
  // 63 chunks dirty most of the 16 pages each: about a thousand versions,
  // nearly all of them deltas of a few dozen bytes.
  CHECK(idx.page_count() > 500);
  CHECK(deltas * 10 > idx.page_count() * 9);
  CHECK(stored < idx.page_count() * sizeof(Page) / 8);
  CHECK(idx.verify().ok());
  auto ref = test::reference_digests(*tt.synth);
  Cursor c(*t);
  std::mt19937_64 rng(3);
  for (int i = 0; i < 60; ++i) {
    uint64_t e = i < 3 ? uint64_t(i) * 2000 : rng() % 4001;
    REQUIRE(c.seek(e).ok());
    CHECK_MESSAGE(c.state().digest() == ref[e], "EID ", e);
  }
}

TEST_CASE("page delta: a corrupt base page is an error naming the index and the base's offset") {
  // A buffer of random bytes: its pages are stored whole, the bases of
  // the deltas that follow (a zero buffer's pages are all deltas against
  // the zero page since index version 11).
  test::SynthTrace synth = scattered_writes(2000);
  std::vector<uint8_t> noise(16 * 4096);
  uint64_t x = 99;
  for (uint8_t& b : noise) b = uint8_t((x = x * 6364136223846793005ull + 1) >> 56);
  synth.initial.push_back({test::SynthEffect::Write, 1, 0, synth.initial.back().addr, std::move(noise)});
  test::TempSynthTrace tt(std::move(synth));
  const std::string index_path = tt.path + ".ttdidx";
  uint64_t base_offset = 0;
  {
    auto t = Trace::open(tt.path, tt.options(64));
    REQUIRE(t.ok());
    const IndexFile& idx = (*t)->index();
    // A delta whose base is a page stored whole.
    for (uint64_t id = 0; id < idx.page_count() && !base_offset; ++id) {
      StoredPage p = stored_page(idx, id);
      PageDeltaHead h;
      if (p.raw.size() == sizeof(Page) ||
          parse_page_delta(reinterpret_cast<const uint8_t*>(p.raw.data()), p.raw.size(), id, h) || h.zero_base)
        continue;
      StoredPage base = stored_page(idx, h.base_id);
      if (base.raw.size() == sizeof(Page)) base_offset = base.ref.offset;
    }
  }
  REQUIRE(base_offset != 0);
  test::flip_byte(index_path, base_offset + 3);
  auto t = Trace::open(tt.path, tt.options(64));
  REQUIRE(t.ok());
  Cursor c(*t);
  bool failed = false;
  for (uint64_t e = 0; e <= 2000; e += 64) {
    Status s = c.seek(e);
    // Seeks are lazy: the damaged page is reported by the read that needs
    // it, here a digest that reads every page.
    if (s.ok()) {
      (void)c.state().digest();
      if (auto fault = c.memory_fault()) s = *fault;
    }
    if (s.ok()) continue;
    failed = true;
    const std::string msg = s.error().to_string();
    CHECK(msg.find(index_path) != std::string::npos);
    CHECK(msg.find("at byte " + std::to_string(base_offset)) != std::string::npos);
    CHECK(msg.find("checksum") != std::string::npos);
    break;
  }
  CHECK(failed);
}

TEST_CASE("page delta: crafted deltas behind correct checksums are errors with the blob's offset") {
  test::TempSynthTrace tt(scattered_writes(2000));
  const std::string index_path = tt.path + ".ttdidx";
  {
    auto t = Trace::open(tt.path, tt.options(64));
    REQUIRE(t.ok());
    REQUIRE((*t)->index().page_count() > 20);
  }
  const std::vector<uint8_t> original = test::read_file_bytes(index_path);
  // Points page ids at crafted blobs (stored as they are) appended to the
  // file, fixes every checksum up, and asks for page `ask`.
  // The error names blob `bad` (appended) and says `want`.
  auto craft = [&](const std::map<uint64_t, std::vector<uint8_t>>& blobs, uint64_t ask, uint64_t bad, const char* want) {
    test::check_crafted_blob_error(tt, 64, original, IndexTable::Pages, blobs, ask, bad, want);
  };
  craft({{10, {0, 0x80, 0x24, 0, 1}}}, 10, 10, "past the page");
  craft({{10, {11, 0, 0, 1}}}, 10, 10, "cycle");           // base id 10: itself
  craft({{10, {15, 0, 0, 1}}}, 10, 10, "cycle");           // base id 14: newer
  craft({{10, {0, 0, 9, 1}}}, 10, 10, "cut short");
  // A delta on a base that is corrupt (past the page): the base is named.
  craft({{10, {0, 0x80, 0x24, 0, 1}}, {12, {11, 0, 0, 1}}}, 12, 10, "past the page");
  // 20 deltas in a row, each on the one before: longer than any chain the
  // builder writes.
  std::map<uint64_t, std::vector<uint8_t>> chain;
  for (uint64_t id = 0; id < 20; ++id) chain[id] = {uint8_t(id), 0, 0, uint8_t(id)};
  // Walking back from 19, the 17th delta (page 3) is one too many.
  craft(chain, 19, 3, "longer than");
}
