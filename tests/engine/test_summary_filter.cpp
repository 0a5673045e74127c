// Summary filters (engine/summary_filter.h, index version 11): a
// breakpoint or watchpoint scan skips a whole summary group when its filter
// says "no". These tests fail if a filter ever rules out a group that holds
// the hit (a pc run once, a line written or read once, in the middle of a
// long trace; both directions), and if a damaged filter is trusted instead
// of answering "maybe".
#include <doctest/doctest.h>

#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "engine/index_file.h"
#include "engine/motion/timeline.h"
#include "engine/summary_filter.h"
#include "index_file_damage.h"
#include "temp_synthetic_trace.h"

// A namespace of its own: CI's unity build compiles it with its suite's other files.
namespace test_summary_filter {

using namespace ttd;
using test::flip_byte;

namespace {

constexpr uint64_t kSteps = 60000, kMid = 31111;
constexpr uint64_t kOncePc = 0x4a0000;       // run by step kMid only
constexpr uint64_t kOnceWritten = 0x12340;   // written by step kMid only (4 bytes)
constexpr uint64_t kOnceRead = 0x12a08;      // read by step kMid only (8 bytes)

test::SynthTrace trace_with_one_rare_step() {
  test::SynthTrace t = test::make_synthetic(kSteps, 1, 5);
  test::SynthStep& s = t.steps[kMid];
  s.info.pc = kOncePc;
  const uint64_t tid = s.info.tid;
  s.effects.push_back({test::SynthEffect::Write, tid, 0, kOnceWritten, {1, 2, 3, 4}});
  s.effects.push_back({test::SynthEffect::Read, tid, 0, kOnceRead, std::vector<uint8_t>(8)});
  return t;
}

struct RareTrace : test::TempSynthTrace {
  RareTrace() : TempSynthTrace(trace_with_one_rare_step()) {}
  OpenOptions options() const { return TempSynthTrace::options(16); }  // 3750 chunks, 118 summary groups
  std::string index() const { return path + ".ttdidx"; }
};

std::shared_ptr<const Trace> open_trace(const RareTrace& rt) {
  auto t = Trace::open(rt.path, rt.options());
  REQUIRE(t.ok());
  return std::shared_ptr<const Trace>(std::move(*t));
}

Stop run(const std::shared_ptr<const Trace>& t, uint64_t from, Direction d, const StopConditions& c) {
  Timeline tl(t);
  REQUIRE(tl.seek(from).ok());
  return tl.run(d, c);
}

uint64_t group_blob_offset(const IndexFile& idx, IndexTable t, uint64_t g) {
  return test::group_record(idx, t, g).offset;
}

// Every stop the rare step can cause, from both ends of the trace.
void check_rare_step_found(const std::shared_ptr<const Trace>& t) {
  StopConditions bp;
  bp.breakpoints = {kOncePc};
  Stop back = run(t, kSteps, Direction::Backward, bp);
  CHECK_FALSE(back.error.has_value());
  CHECK(back.kind == StopKind::Breakpoint);
  CHECK(back.eid == kMid);
  Stop fwd = run(t, 0, Direction::Forward, bp);
  CHECK(fwd.kind == StopKind::Breakpoint);
  CHECK(fwd.eid == kMid);

  for (auto [addr, len, kind] : {std::tuple{kOnceWritten + 2, uint64_t(1), WatchKind::Write},
                                 std::tuple{kOnceRead, uint64_t(8), WatchKind::Read},
                                 std::tuple{kOnceRead + 4, uint64_t(2), WatchKind::Access}}) {
    CAPTURE(addr);
    StopConditions w;
    w.watchpoints = {Watchpoint{addr, len, kind}};
    Stop wb = run(t, kSteps, Direction::Backward, w);
    CHECK_FALSE(wb.error.has_value());
    CHECK(wb.kind == StopKind::Watchpoint);
    CHECK(wb.hit_eid == kMid);
    Stop wf = run(t, 0, Direction::Forward, w);
    CHECK(wf.kind == StopKind::Watchpoint);
    CHECK(wf.hit_eid == kMid);
  }
}

}  // namespace

TEST_CASE("a key filter holds every key added and few others") {
  std::mt19937_64 rng(11);
  std::vector<uint64_t> keys(5000);
  for (auto& k : keys) k = rng() & 0xffffffffffull;
  KeyFilter f;
  CHECK_FALSE(f.may_hold(keys[0]));  // empty: nothing was added
  f.build(keys, 0);
  for (uint64_t k : keys) REQUIRE(f.may_hold(k));
  size_t false_yes = 0;
  for (int i = 0; i < 100000; ++i) false_yes += f.may_hold((rng() & 0xffffffffffull) | (uint64_t(1) << 50));
  CHECK(false_yes < 2500);  // ~1.2 % expected
  // Neighbouring pcs (a loop's) spread like random ones.
  std::vector<uint64_t> pcs;
  for (uint64_t pc = 0x401000; pc < 0x401000 + 4 * 2000; pc += 4) pcs.push_back(pc);
  f.build(pcs, 7);
  false_yes = 0;
  for (uint64_t pc = 0x501000; pc < 0x501000 + 4 * 20000; pc += 4) false_yes += f.may_hold(pc);
  CHECK(false_yes < 500);
  for (uint64_t pc : pcs) REQUIRE(f.may_hold(pc));
}

TEST_CASE("a key filter survives encoding and refuses a truncated one") {
  KeyFilter f, g;
  f.build({1, 2, 3, 0x401000}, 5);
  ByteWriter w;
  f.encode(w);
  ByteReader r(w.data(), w.size());
  REQUIRE(g.decode(r, 5));
  CHECK(r.at_end());
  CHECK(g.may_hold(0x401000));
  KeyFilter h;
  ByteReader cut(w.data(), w.size() - 1);
  CHECK_FALSE(h.decode(cut, 5));
}

TEST_CASE("an access filter answers for lines and coarse pages, and 'maybe' for long ranges") {
  ChunkSummary s;
  s.lines_written = {0x12340 >> 6};
  s.pages_written_coarse = {0x20};
  SummaryFilterBuilder b;
  b.add(s);
  b.add(ChunkSummary{});
  ByteWriter pcs, access;
  b.take(pcs, access, 3);
  GroupAccessFilter f;
  ByteReader r(access.data(), access.size());
  REQUIRE(decode_access_filter(r, f, 3));
  CHECK(f.may_write(0x1233f, 2));  // ends in the line
  CHECK(f.may_write(0x20ff0, 1));  // a coarse page
  CHECK(f.may_write(0x1f000, 0x1001 + 0x40));  // reaches into the coarse page... and is long: maybe
  CHECK_FALSE(f.may_write(0x12380, 8));
  CHECK_FALSE(f.may_write(0x12340, 0));
  CHECK_FALSE(f.may_read(0x12340, 4));  // nothing read
  CHECK_FALSE(f.may_write(0x50000, 64 * 65));  // pages no line of which was written
  CHECK(f.may_write(0x12000, 4096 * 2));         // the line's page and the next
  CHECK(f.may_write(0x50000, 4096 * 65));        // more pages than are probed
}

TEST_CASE("a pc run once and a line accessed once in the middle of a long trace stop every scan") {
  RareTrace rt;
  auto t = open_trace(rt);
  const IndexFile& idx = t->index();
  const uint64_t per = idx.chunks_per_filter();
  REQUIRE(per == 32);
  const uint64_t mid_group = idx.chunk_of(kMid) / per;
  // The filters are what rules the other groups out.
  for (uint64_t g : {uint64_t(0), mid_group - 1, mid_group, mid_group + 1, uint64_t(idx.chunk_count() - 1) / per}) {
    auto pf = idx.pc_filter(g);
    auto af = idx.access_filter(g);
    REQUIRE(pf);
    REQUIRE(af);
    CHECK(pf->may_run(kOncePc) == (g == mid_group));
    CHECK(af->may_write(kOnceWritten, 4) == (g == mid_group));
    CHECK(af->may_read(kOnceRead, 8) == (g == mid_group));
    CHECK(pf->may_run(0x401000));
  }
  check_rare_step_found(t);
}

TEST_CASE("a damaged summary filter answers 'maybe': the scans still stop at the rare step") {
  RareTrace rt;
  uint64_t bad_pcs = 0, bad_access = 0;
  uint64_t mid_group = 0;
  {
    auto t = open_trace(rt);
    const IndexFile& idx = t->index();
    mid_group = idx.chunk_of(kMid) / idx.chunks_per_filter();
    const uint64_t ge = idx.table(IndexTable::PcFilters).group_entries;
    bad_pcs = group_blob_offset(idx, IndexTable::PcFilters, mid_group / ge);
    bad_access = group_blob_offset(idx, IndexTable::AccessFilters, mid_group / ge);
  }
  flip_byte(rt.index(), bad_pcs + 5);
  flip_byte(rt.index(), bad_access + 5);
  auto t = open_trace(rt);
  CHECK(t->stats().reused);
  const IndexFile& idx = t->index();
  CHECK_FALSE(idx.pc_filter(mid_group));
  CHECK_FALSE(idx.access_filter(mid_group));
  check_rare_step_found(t);
  auto v = idx.verify();
  REQUIRE_FALSE(v.ok());
  CHECK((v.error().offset == bad_pcs || v.error().offset == bad_access));
}

TEST_CASE("an index of version 10 (no summary filters) is rebuilt, not read") {
  RareTrace rt;
  { open_trace(rt); }
  {
    std::fstream f(rt.index(), std::ios::in | std::ios::out | std::ios::binary);
    const uint32_t v10 = 10;
    f.seekp(std::streamoff(offsetof(IndexHeader, version)));
    f.write(reinterpret_cast<const char*>(&v10), 4);
    REQUIRE(f.good());
  }
  auto t = open_trace(rt);
  CHECK_FALSE(t->stats().reused);
  CHECK(t->index().pc_filter(0));
  IndexHeader h;
  std::ifstream(rt.index(), std::ios::binary).read(reinterpret_cast<char*>(&h), sizeof h);
  CHECK(h.version == kIndexVersion);
  CHECK(kIndexVersion >= 11);
}

// Issue 17: the groups of a loop's trace hold the same keys. With the same
// hashes in every group, a line that is a false positive of one group's
// filter was one in all of them, and a scan for it read every chunk summary
// of the trace. Salted by the group number (index version 13), a false
// positive of one group is one in ~1 % of the others.
TEST_CASE("a line that one group's filter wrongly holds is ruled out by the other groups") {
  RareTrace rt;
  auto t = open_trace(rt);
  const IndexFile& idx = t->index();
  const uint64_t per = idx.chunks_per_filter(), groups = (idx.chunk_count() + per - 1) / per;
  REQUIRE(groups > 100);
  auto first = idx.access_filter(0);
  REQUIRE(first);
  // A line no step wrote that group 0's filter says "maybe" to.
  uint64_t line_addr = 0;
  for (uint64_t a = 0x40000000; a < 0x40000000 + (uint64_t(1) << 26) && !line_addr; a += 64)
    if (first->may_write(a, 8)) line_addr = a;
  REQUIRE(line_addr != 0);
  size_t also = 0;
  for (uint64_t g = 1; g < groups; ++g) {
    auto f = idx.access_filter(g);
    REQUIRE(f);
    also += f->may_write(line_addr, 8);
  }
  CAPTURE(line_addr);
  CHECK(also < groups / 10);
}

// A code run of 64 lines (a disassembly view) is ~64 probes: at ~0.5-1 %
// false positives per probe, a third of the groups said "maybe" to some
// line of it. The pages of the written lines are keys too (index version
// 13), and a page no short access touched rules out all its lines at once.
TEST_CASE("a run of 64 lines no step wrote is ruled out by almost every group") {
  RareTrace rt;
  auto t = open_trace(rt);
  const IndexFile& idx = t->index();
  const uint64_t per = idx.chunks_per_filter(), groups = (idx.chunk_count() + per - 1) / per;
  size_t maybe = 0;
  for (uint64_t g = 0; g < groups; ++g) {
    auto f = idx.access_filter(g);
    REQUIRE(f);
    // Another run per group, so that the groups' answers are independent
    // even without the salt; it straddles two pages.
    maybe += f->may_write(0x50000000 + g * 0x10000 + 0x800, 64 * 64);
  }
  CHECK(maybe <= groups / 20);
}

// Version 12's filters hash without the group's salt: read as version 13
// they would answer "no" for keys they hold.
TEST_CASE("an index of version 12 (unsalted filters) is rebuilt, not read") {
  RareTrace rt;
  { open_trace(rt); }
  {
    std::fstream f(rt.index(), std::ios::in | std::ios::out | std::ios::binary);
    const uint32_t v12 = 12;
    f.seekp(std::streamoff(offsetof(IndexHeader, version)));
    f.write(reinterpret_cast<const char*>(&v12), 4);
    REQUIRE(f.good());
  }
  auto t = open_trace(rt);
  CHECK_FALSE(t->stats().reused);
  IndexHeader h;
  std::ifstream(rt.index(), std::ios::binary).read(reinterpret_cast<char*>(&h), sizeof h);
  CHECK(h.version == kIndexVersion);
  CHECK(kIndexVersion >= 13);
  check_rare_step_found(t);
}

}  // namespace test_summary_filter
