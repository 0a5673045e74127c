// Lazy state on seek (issue 17, item 3): a seek reads no page; the pages a
// read or the replay touches come from the index then, with the bytes an
// eager restore gives; a corrupt page blob is reported by the access that
// needs it, not by the seek.
#include <doctest/doctest.h>

#include <fstream>
#include <random>

#include "engine/cursor.h"
#include "engine/index_file.h"
#include "engine/keyframe_codec.h"
#include "engine/page_cache.h"
#include "index_file_damage.h"
#include "temp_synthetic_trace.h"

// A namespace of its own: CI's unity build compiles it with its suite's other files.
namespace test_lazy_seek {

using namespace ttd;

namespace {

constexpr uint64_t kBase = 0x4000000;  // page-group aligned
constexpr uint64_t kMapPages = 1024;   // 4 MiB: two page-map segments
constexpr uint64_t kPagesWritten = 300;
constexpr uint32_t kK = 16;

uint64_t page_of_step(uint64_t i) { return (kBase >> kPageShift) + (i % kPagesWritten) * 3; }
uint64_t addr_of_step(uint64_t i) { return (page_of_step(i) << kPageShift) + (i * 40) % (kPageSize - 8); }

// Step i writes 8 distinct bytes into page page_of_step(i): each page is
// written twice (steps s and s + 300), never twice with the same content.
test::SynthTrace page_heavy(uint64_t steps, uint64_t map_pages = kMapPages) {
  test::SynthTrace t;
  t.initial.push_back({test::SynthEffect::Map, 1, 0, kBase, std::vector<uint8_t>(map_pages * kPageSize, 0)});
  t.initial.push_back({test::SynthEffect::Reg, 100, 0, 0, {7, 0, 0, 0, 0, 0, 0, 0}});
  for (uint64_t i = 0; i < steps; ++i) {
    test::SynthStep s;
    s.info = fmt::StepInfo{100, 1, 0x401000 + (i % 5) * 4, 4, fmt::StepKind::Instruction};
    std::vector<uint8_t> v(8);
    for (int b = 0; b < 8; ++b) v[b] = uint8_t((i * 8 + b) * 13 + 1);
    s.effects.push_back({test::SynthEffect::Reg, 100, 1, 0, v});
    s.effects.push_back({test::SynthEffect::Write, 100, 0, addr_of_step(i), v});
    t.steps.push_back(std::move(s));
  }
  return t;
}

// The memory linear replay gives before step `eid`.
PagedMemory reference_memory(const test::SynthTrace& t, uint64_t eid) {
  PagedMemory m;
  m.fill(kBase, kMapPages * kPageSize, 0);
  for (uint64_t i = 0; i < eid; ++i)
    for (const auto& e : t.steps[i].effects)
      if (e.kind == test::SynthEffect::Write) m.write(e.addr, e.bytes.data(), e.bytes.size());
  return m;
}

void check_page(const Cursor& c, const PagedMemory& ref, uint64_t no) {
  std::vector<uint8_t> a(kPageSize), av(kPageSize), b(kPageSize), bv(kPageSize);
  const ProcessState* p = c.state().find_process(1);
  REQUIRE(p);
  CHECK(p->memory.read(no << kPageShift, a.data(), av.data(), kPageSize) ==
        ref.read(no << kPageShift, b.data(), bv.data(), kPageSize));
  CHECK_MESSAGE(a == b, "page ", no);
  CHECK_MESSAGE(av == bv, "page ", no);
}

size_t resident(const Cursor& c) { return c.state().find_process(1)->memory.resident_page_count(); }

struct TempTrace : test::TempSynthTrace {
  explicit TempTrace(uint64_t steps, uint64_t map_pages = kMapPages) : TempSynthTrace(page_heavy(steps, map_pages)) {}
  OpenOptions options() const { return TempSynthTrace::options(kK); }
  std::string index() const { return path + ".ttdidx"; }
};

}  // namespace

TEST_CASE("a lazy seek reads no page, a page never touched since returns the right bytes when read") {
  TempTrace tt(700);
  auto t = Trace::open(tt.path, tt.options());
  REQUIRE(t.ok());
  Cursor c(*t);
  const uint64_t at = 40 * kK;  // a keyframe: nothing replayed
  REQUIRE(c.seek(at).ok());
  CHECK(resident(c) == 0);
  const PagedMemory ref = reference_memory(*tt.synth, at);
  // Written long before the keyframe, twice (steps 7 and 307), never since.
  check_page(c, ref, page_of_step(7));
  CHECK(resident(c) == 1);
  // Mapped, never written: the zero page.
  check_page(c, ref, page_of_step(0) + 1);
  // Outside every mapping.
  check_page(c, ref, (kBase >> kPageShift) - 1);
  for (uint64_t no = kBase >> kPageShift; no < (kBase >> kPageShift) + kMapPages; no += 97) check_page(c, ref, no);
  CHECK_FALSE(c.memory_fault());
}

TEST_CASE("reads after replay writes into lazily installed pages see the keyframe's bytes and the writes") {
  TempTrace tt(700);
  auto t = Trace::open(tt.path, tt.options());
  REQUIRE(t.ok());
  Cursor c(*t);
  for (uint64_t at : {uint64_t(35 * kK + 11), uint64_t(20 * kK + 15), uint64_t(43 * kK + 1)}) {
    REQUIRE(c.seek(at).ok());
    // Only the pages the replay wrote (at most one per step) were read.
    CHECK(resident(c) <= at % kK);
    const PagedMemory ref = reference_memory(*tt.synth, at);
    for (uint64_t i = at - at % kK; i < at; ++i) check_page(c, ref, page_of_step(i));
    // The next keyframe restore keeps none of them.
    REQUIRE(c.seek(at - at % kK).ok());
    CHECK(resident(c) == 0);
  }
}

TEST_CASE("lazy and eager seeks give the same digest at every EID, in any order") {
  TempTrace tt(700);
  auto t = Trace::open(tt.path, tt.options());
  REQUIRE(t.ok());
  const auto ref = test::reference_digests(*tt.synth);
  Cursor lazy(*t), eager(*t, PageLoading::Eager);
  auto same_at = [&](uint64_t e, const char* how) {
    REQUIRE(lazy.seek(e).ok());
    REQUIRE(eager.seek(e).ok());
    CHECK_MESSAGE(lazy.state().digest() == eager.state().digest(), how, " EID ", e);
    CHECK_MESSAGE(lazy.state().digest() == ref[e], how, " EID ", e);
  };
  for (uint64_t e = 0; e <= 700; ++e) same_at(e, "forward");
  for (uint64_t e = 701; e-- > 0;) same_at(e, "backward");
  std::mt19937 rng(3);
  for (int i = 0; i < 300; ++i) same_at(rng() % 701, "random");
}

TEST_CASE("a cursor keeps at most kMaxResidentPages pages into a seek") {
  const uint64_t pages = Cursor::kMaxResidentPages + 700;
  TempTrace tt(40, pages);
  auto t = Trace::open(tt.path, tt.options());
  REQUIRE(t.ok());
  Cursor c(*t);
  REQUIRE(c.seek(kK + 2).ok());
  const uint64_t d = c.state().digest();  // reads every page
  CHECK(resident(c) == pages);
  // Forward within reach replays from here, unless the cursor holds too much.
  REQUIRE(c.seek(kK + 3).ok());
  CHECK(resident(c) <= 3);
  REQUIRE(c.seek(kK + 2).ok());
  CHECK(c.state().digest() == d);
  // Under the bound, what was read stays for a short forward seek.
  TempTrace small(40);
  auto s = Trace::open(small.path, small.options());
  REQUIRE(s.ok());
  Cursor c2(*s);
  REQUIRE(c2.seek(kK + 2).ok());
  (void)c2.state().digest();
  REQUIRE(c2.seek(kK + 4).ok());
  CHECK(resident(c2) == kMapPages);
}

TEST_CASE("a corrupt page blob is reported by the read that touches it, not by the seek or the replay") {
  TempTrace tt(700);
  // Page P is written at steps s and s + 300; the keyframe at chunk c
  // (after s, before s + 300) holds P's first version.
  const uint64_t s = 123, later = s + 300, c = later / kK, kf_eid = c * kK;
  REQUIRE(later % kK != 0);
  const uint64_t P = page_of_step(s);
  uint64_t bad = 0;
  {
    auto t = Trace::open(tt.path, tt.options());
    REQUIRE(t.ok());
    const IndexFile& idx = (*t)->index();
    std::string kf;
    REQUIRE(idx.read_blob(idx.chunk(c).keyframe, kf));
    KeyframeView view;
    const SegmentById segs = (*t)->pages().segment_source();
    REQUIRE(parse_keyframe(reinterpret_cast<const uint8_t*>(kf.data()), kf.size(), (*t)->arch(), &segs, view));
    REQUIRE(view.processes.size() == 1);
    uint64_t id = ~0ull;
    for (const auto& pg : view.processes[0].pages)
      if (pg.no == P) id = pg.id;
    REQUIRE(id != ~0ull);
    BlobRef ref;
    REQUIRE(idx.page_ref(id, ref));
    bad = ref.offset;
  }
  test::flip_byte(tt.index(), bad);
  auto t = Trace::open(tt.path, tt.options());
  REQUIRE(t.ok());
  REQUIRE((*t)->stats().reused);
  Cursor cur(*t);
  REQUIRE(cur.seek(kf_eid).ok());  // the seek reads no page
  const PagedMemory ref = reference_memory(*tt.synth, kf_eid);
  check_page(cur, ref, P + 1);  // other pages are fine
  CHECK_FALSE(cur.memory_fault());
  uint8_t b[8], v[8];
  CHECK(cur.state().find_process(1)->memory.read(P << kPageShift, b, v, 8) == 0);
  REQUIRE(cur.memory_fault());
  const std::string msg = cur.memory_fault()->to_string();
  CHECK(msg.find(tt.index()) != std::string::npos);
  CHECK(msg.find("at byte " + std::to_string(bad)) != std::string::npos);
  CHECK(msg.find("checksum") != std::string::npos);
  CHECK(msg.find("memory page at 0x" + [&] {
    char h[24];
    std::snprintf(h, sizeof h, "%llx", static_cast<unsigned long long>(P << kPageShift));
    return std::string(h);
  }()) != std::string::npos);
  // The next seek starts clean.
  REQUIRE(cur.seek(kf_eid + 1).ok());
  CHECK_FALSE(cur.memory_fault());
  // A replay writing into P does not read it (the write waits in an
  // overlay): the seek succeeds, and the read of P reports the damage.
  REQUIRE(cur.seek(later + 1).ok());
  CHECK_FALSE(cur.memory_fault());
  CHECK(cur.state().find_process(1)->memory.read(addr_of_step(later), b, v, 8) == 0);
  REQUIRE(cur.memory_fault());
  CHECK(cur.memory_fault()->to_string().find("at byte " + std::to_string(bad)) != std::string::npos);
  // Then elsewhere all is well again.
  REQUIRE(cur.seek(5).ok());
  check_page(cur, reference_memory(*tt.synth, 5), page_of_step(2));
  // An eager restore reads every page, so it fails at the seek.
  Cursor eager(*t, PageLoading::Eager);
  CHECK_FALSE(eager.seek(kf_eid).ok());
}

}  // namespace test_lazy_seek
