// Page-map segments stored as deltas (index version 14, engine/segment_codec.h):
// the codec round-trips and refuses every corruption; the builder's store
// bounds chains and deduplicates; an index of a trace that writes a few
// pages of many segments per chunk stores segment deltas, and seeks reach
// the linear-replay state; a cycle, an unknown kind, a removal of a page
// the base lacks and an overlong chain are errors naming the index file
// and the blob's offset.
#include <doctest/doctest.h>

#include <map>
#include <random>

#include "engine/cursor.h"
#include "engine/index_file.h"
#include "engine/page_cache.h"
#include "engine/segment_codec.h"
#include "engine/segment_version_store.h"
#include "crafted_blob_check.h"
#include "index_file_damage.h"
#include "temp_synthetic_trace.h"

using namespace ttd;

namespace {
constexpr uint64_t kKey = 3, kFirst = kKey << kSegmentShift;
const char* apply(const ByteWriter& w, uint64_t own_id, const SegmentPages& base, SegmentPages& out) {
  SegmentHead h;
  if (const char* e = parse_segment_head(w.data(), w.size(), own_id, h)) return e;
  REQUIRE(h.delta);
  return apply_segment_delta(w.data(), w.size(), h, base, out);
}
const char* apply_bytes(const std::vector<uint8_t>& b, uint64_t own_id, const SegmentPages& base) {
  SegmentHead h;
  SegmentPages out;
  if (const char* e = parse_segment_head(b.data(), b.size(), own_id, h)) return e;
  return apply_segment_delta(b.data(), b.size(), h, base, out);
}
// Relative numbers, as a decoded segment holds them.
SegmentPages relative(const std::vector<KeyframePage>& abs) {
  SegmentPages r;
  for (const auto& p : abs) r.push_back({p.no - kFirst, p.id});
  return r;
}
bool same(const SegmentPages& a, const SegmentPages& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].no != b[i].no || a[i].id != b[i].id) return false;
  return true;
}
}  // namespace

TEST_CASE("segment delta: sets, replacements and removals round-trip") {
  const std::vector<KeyframePage> base = {{kFirst + 0, 5}, {kFirst + 3, 6}, {kFirst + 10, 7}, {kFirst + 511, 900000}};
  const std::vector<KeyframePage> next = {{kFirst + 0, 5}, {kFirst + 3, 9}, {kFirst + 11, 8}, {kFirst + 511, 900001}};
  ByteWriter w;
  REQUIRE(encode_segment_delta(base.data(), base.size(), next.data(), next.size(), kKey, 4, w));
  SegmentPages got;
  REQUIRE(apply(w, 20, relative(base), got) == nullptr);
  CHECK(same(got, relative(next)));
  // Its base is 4 ids older.
  SegmentHead h;
  REQUIRE(parse_segment_head(w.data(), w.size(), 20, h) == nullptr);
  CHECK(h.base_id == 16);
  // Four changes (3 replaced, 10 removed, 11 added, 511 replaced) in a few
  // bytes each, where the whole segment restates every page.
  CHECK(w.size() <= 3 + 4 * 3);
  // From nothing, and to nothing.
  ByteWriter from_empty, to_empty;
  REQUIRE(encode_segment_delta(nullptr, 0, next.data(), next.size(), kKey, 1, from_empty));
  REQUIRE(apply(from_empty, 1, {}, got) == nullptr);
  CHECK(same(got, relative(next)));
  REQUIRE(encode_segment_delta(next.data(), next.size(), nullptr, 0, kKey, 1, to_empty));
  REQUIRE(apply(to_empty, 1, relative(next), got) == nullptr);
  CHECK(got.empty());
  // The same pages: no delta to write.
  ByteWriter none;
  CHECK(!encode_segment_delta(base.data(), base.size(), base.data(), base.size(), kKey, 1, none));
  CHECK(none.size() == 0);
  // A whole segment is not a delta, and check_segment_blob accepts both.
  ByteWriter whole;
  encode_segment(next.data(), next.size(), kKey, whole);
  CHECK(check_segment_blob(whole.data(), whole.size(), 0) == nullptr);
  CHECK(check_segment_blob(w.data(), w.size(), 20) == nullptr);
  SegmentPages decoded;
  REQUIRE(decode_segment(whole.data(), whole.size(), decoded));
  CHECK(same(decoded, relative(next)));
  CHECK(!decode_segment(w.data(), w.size(), decoded));
}

TEST_CASE("segment delta: every corruption is refused, never applied out of bounds") {
  const SegmentPages base = {{1, 10}, {4, 11}};
  CHECK(apply_bytes({1, 1, 1, 2 << 1, 2}, 5, base) == nullptr);  // sets page 2 to id 1
  CHECK(std::string(apply_bytes({1, 0, 1, 0, 2}, 5, base)).find("not an older") != std::string::npos);  // itself
  CHECK(std::string(apply_bytes({1, 6, 1, 0, 2}, 5, base)).find("not an older") != std::string::npos);  // before id 0
  CHECK(std::string(apply_bytes({2, 1, 1, 0, 2}, 5, base)).find("unknown") != std::string::npos);
  CHECK(std::string(apply_bytes({1, 1, 0}, 5, base)).find("count") != std::string::npos);                 // no change
  CHECK(std::string(apply_bytes({1, 1, 1, (3 << 1) | 1}, 5, base)).find("does not have") != std::string::npos);
  CHECK(std::string(apply_bytes({1, 1, 2, 2 << 1, 2, 0, 2}, 5, base)).find("ascending") != std::string::npos);
  CHECK(std::string(apply_bytes({1, 1, 1, 0x80, 0x08, 2}, 5, base)).find("outside") != std::string::npos);  // page 512
  CHECK(std::string(apply_bytes({1, 1, 1, 2 << 1, 2, 9}, 5, base)).find("after") != std::string::npos);
  const std::vector<uint8_t> good = {1, 1, 2, (2 << 1) | 0, 2, (2 << 1) | 1};
  CHECK(apply_bytes(good, 5, base) == nullptr);
  for (size_t cut = 0; cut < good.size(); ++cut)
    CHECK(apply_bytes(std::vector<uint8_t>(good.begin(), good.begin() + long(cut)), 5, base) != nullptr);
  CHECK(check_segment_blob(good.data(), 3, 5) != nullptr);
}

TEST_CASE("segment delta: the builder's store chains at most kMaxSegmentDeltaChain deltas and deduplicates") {
  std::vector<std::vector<uint8_t>> blobs;
  SegmentVersionStore store;
  auto put = [&](const uint8_t* d, size_t n) {
    blobs.emplace_back(d, d + n);
    return uint64_t(blobs.size() - 1);
  };
  std::vector<KeyframePage> pages, previous;
  for (uint64_t i = 0; i < 200; ++i) pages.push_back({kFirst + i, 1000 + i});
  uint64_t previous_id = SegmentVersionStore::kNone;
  std::vector<SegmentPages> versions;  // by id
  for (int v = 0; v < 40; ++v) {
    pages[size_t(v * 7) % pages.size()].id = 5000 + uint64_t(v);  // one page replaced a version
    const uint64_t id = store.id_of(pages.data(), pages.size(), kKey, previous.data(), previous.size(), previous_id, put);
    REQUIRE(id == versions.size());
    versions.push_back(relative(pages));
    previous = pages;
    previous_id = id;
  }
  // The same content again: the same id, nothing put.
  const size_t puts = blobs.size();
  CHECK(store.id_of(pages.data(), pages.size(), kKey, nullptr, 0, SegmentVersionStore::kNone, put) == previous_id);
  CHECK(blobs.size() == puts);
  // Every version restores by walking back to a whole one, at most 8
  // deltas away; a whole copy every 9 versions.
  size_t whole = 0;
  for (uint64_t id = 0; id < versions.size(); ++id) {
    std::vector<uint64_t> chain;
    uint64_t cur = id;
    SegmentHead h;
    for (;;) {
      const auto& b = blobs[store.tickets()[cur]];
      REQUIRE(parse_segment_head(b.data(), b.size(), cur, h) == nullptr);
      if (!h.delta) break;
      chain.push_back(cur);
      cur = h.base_id;
    }
    CHECK(chain.size() <= kMaxSegmentDeltaChain);
    whole += chain.empty();
    const auto& wb = blobs[store.tickets()[cur]];
    SegmentPages got;
    REQUIRE(decode_segment(wb.data(), wb.size(), got));
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      const auto& b = blobs[store.tickets()[*it]];
      SegmentPages next;
      REQUIRE(parse_segment_head(b.data(), b.size(), *it, h) == nullptr);
      REQUIRE(apply_segment_delta(b.data(), b.size(), h, got, next) == nullptr);
      got = std::move(next);
    }
    CHECK_MESSAGE(same(got, versions[id]), "version ", id);
  }
  CHECK(whole == (versions.size() + kMaxSegmentDeltaChain) / (kMaxSegmentDeltaChain + 1));
  // Without chains every version is whole.
  SegmentVersionStore flat(0);
  blobs.clear();
  flat.id_of(pages.data(), pages.size(), kKey, nullptr, 0, SegmentVersionStore::kNone, put);
  pages[0].id = 1;
  flat.id_of(pages.data(), pages.size(), kKey, previous.data(), previous.size(), 0, put);
  CHECK(blobs.back()[0] == 0);
}

namespace {
// A loop that writes one byte into a random page of a 4096-page (eight
// segment) buffer each step.
test::SynthTrace pages_everywhere(uint64_t steps) {
  test::SynthTrace synth = test::make_synthetic(steps, 1, 13);
  const uint64_t heap = 0x40000000;
  synth.initial.push_back({test::SynthEffect::Map, 1, 0, heap, std::vector<uint8_t>(4096 * 4096, 0)});
  for (uint64_t p = 0; p < 4096; p += 3) synth.initial.push_back({test::SynthEffect::Write, 1, 0, heap + p * 4096, {1}});
  uint64_t x = 1;
  for (auto& s : synth.steps) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    s.effects.push_back({test::SynthEffect::Write, 1, 0, heap + ((x >> 30) % 4096) * 4096 + 8, {uint8_t(x >> 20)}});
  }
  return synth;
}
}  // namespace

TEST_CASE("segment delta: a trace writing a few pages of many segments per chunk stores deltas, and seeks are exact") {
  test::TempSynthTrace tt(pages_everywhere(3000));
  auto t = Trace::open(tt.path, tt.options(64));
  REQUIRE(t.ok());
  const IndexFile& idx = (*t)->index();
  uint64_t deltas = 0, delta_bytes = 0, whole_bytes = 0, wholes = 0;
  for (uint64_t id = 0; id < idx.segment_count(); ++id) {
    BlobRef ref;
    std::string raw;
    REQUIRE(idx.segment_ref(id, ref));
    REQUIRE(idx.read_blob(ref, raw));
    const bool delta = raw[0] == 1;
    deltas += delta;
    (delta ? delta_bytes : whole_bytes) += raw.size();
    wholes += !delta;
  }
  // 46 chunks each write ~64 pages over the 8 heap segments: nearly every
  // segment version is a delta of a few changes, a fraction of the whole.
  CHECK(idx.segment_count() > 300);
  CHECK(deltas * 10 > idx.segment_count() * 8);
  CHECK(delta_bytes / deltas * 8 < whole_bytes / wholes);
  CHECK(idx.verify().ok());
  auto ref = test::reference_digests(*tt.synth);
  Cursor c(*t);
  std::mt19937_64 rng(5);
  for (int i = 0; i < 40; ++i) {
    uint64_t e = i < 3 ? uint64_t(i) * 1500 : rng() % 3001;
    REQUIRE(c.seek(e).ok());
    CHECK_MESSAGE(c.state().digest() == ref[e], "EID ", e);
  }
}

TEST_CASE("segment delta: crafted segments behind correct checksums are errors with the blob's offset") {
  test::TempSynthTrace tt(pages_everywhere(1000));
  const std::string index_path = tt.path + ".ttdidx";
  {
    auto t = Trace::open(tt.path, tt.options(64));
    REQUIRE(t.ok());
    REQUIRE((*t)->index().segment_count() > 20);
  }
  const std::vector<uint8_t> original = test::read_file_bytes(index_path);
  auto craft = [&](const std::map<uint64_t, std::vector<uint8_t>>& blobs, uint64_t ask, uint64_t bad, const char* want) {
    test::check_crafted_blob_error(tt, 64, original, IndexTable::Segments, blobs, ask, bad, want);
  };
  craft({{10, {1, 0, 1, 0, 2}}}, 10, 10, "not an older");
  craft({{10, {9, 1, 0}}}, 10, 10, "unknown segment kind");
  craft({{10, {0, 1, 0, 2}}, {11, {1, 1, 1, (5 << 1) | 1}}}, 11, 11, "does not have");
  craft({{10, {0, 1, 0x80, 0x04, 1}}}, 10, 10, "outside the segment");
  craft({{10, {0, 0x80, 0x24, 0, 1}}, {12, {1, 2, 1, 0, 2}}}, 12, 10, "count out of range");
  // Ten deltas in a row on a whole segment: longer than any chain the
  // builder writes. Walking back from 20, the ninth delta (12) is one too many.
  std::map<uint64_t, std::vector<uint8_t>> chain = {{10, {0, 0}}};
  for (uint64_t id = 11; id <= 20; ++id) chain[id] = {1, 1, 1, uint8_t((id - 10) << 1), 2};
  craft(chain, 20, 12, "longer than");
}
