// History queries through the summary filters (engine/summary_filter_gate.h):
// executions, memory history, register history, value search in time and
// reverse-continue ask the same gate which summary groups may hold a hit.
// On a synthetic trace with rare hits on the first and last step, on both
// sides of summary-group boundaries and in the intact and a damaged filter
// table group, every query answers the same with the filters on and forced
// off, and as a brute-force look at the steps says; queries for keys no
// step has rule groups out (these checks fail when a query walks every
// chunk summary instead of asking the filters).
#include <doctest/doctest.h>

#include <tuple>
#include <vector>

#include "engine/index_file.h"
#include "engine/motion/timeline.h"
#include "engine/query/executions.h"
#include "engine/query/memory_history.h"
#include "engine/query/register_history.h"
#include "engine/query/value_search.h"
#include "engine/summary_filter_gate.h"
#include "index_file_damage.h"
#include "temp_synthetic_trace.h"

using namespace ttd;
using namespace ttd::query;

namespace {

// 16 steps per chunk, 32 chunks per summary group: group g is steps
// [512 g, 512 g + 512); 79 groups, filter table groups 0-63 and 64-78.
constexpr uint64_t kSteps = 40000, kChunkSteps = 16, kGroupSteps = 512;
const std::vector<uint64_t> kRare = {0,     511,   512,   5119,  10240, 10241,
                                     33279, 33280, 36000, 39998, 39999};
constexpr uint64_t kRarePc = 0x4a0000, kNeverPc = 0x4b0000;
constexpr uint64_t kRareWritten = 0x12340, kRareRead = 0x12a08, kNeverTouched = 0x12800;
constexpr uint16_t kRareReg = 12;  // r12; the synthetic loop writes registers 0-7 only

test::SynthTrace rare_hit_trace() {
  test::SynthTrace t = test::make_synthetic(kSteps, 1, 9);
  for (size_t k = 0; k < kRare.size(); ++k) {
    test::SynthStep& s = t.steps[kRare[k]];
    s.info.pc = kRarePc;
    const uint64_t tid = s.info.tid;
    s.effects.push_back({test::SynthEffect::Write, tid, 0, kRareWritten, {0xde, 0xad, 0xbe, uint8_t(0x10 + k)}});
    s.effects.push_back({test::SynthEffect::Read, tid, 0, kRareRead, std::vector<uint8_t>(8)});
    s.effects.push_back({test::SynthEffect::Reg, tid, kRareReg, 0, {uint8_t(k), 0, 0, 0, 0, 0, 0, 0}});
  }
  return t;
}

struct RareHitTrace : test::TempSynthTrace {
  RareHitTrace() : TempSynthTrace(rare_hit_trace()) {}
  std::string index() const { return path + ".ttdidx"; }
  std::shared_ptr<const Trace> open() const {
    auto t = Trace::open(path, options(kChunkSteps));
    REQUIRE(t.ok());
    return std::shared_ptr<const Trace>(std::move(*t));
  }
};

// Filters on (the default) or off for one scope.
struct FiltersOff {
  FiltersOff() { set_summary_filters_enabled(false); }
  ~FiltersOff() { set_summary_filters_enabled(true); }
};

uint64_t ruled_out() { return summary_filter_counters().ruled_out.load(); }

QueryStart window(uint64_t from, uint64_t to, Direction d) {
  QueryStart s;
  s.window = {from, to};
  s.direction = d;
  return s;
}

// The windows every query runs over: the whole trace and ones whose ends
// sit on or next to group boundaries and rare steps.
std::vector<EidWindow> windows() {
  return {{0, kSteps}, {1, kSteps - 1}, {511, 513}, {512, 5120}, {513, 33280}, {5119, 5120}, {10241, 36001},
          {2000, 5000}, {33279, kSteps}};
}

std::vector<uint64_t> rare_in(const EidWindow& w, Direction d) {
  std::vector<uint64_t> out;
  for (uint64_t e : kRare)
    if (e >= w.from && e < w.to) out.push_back(e);
  if (d == Direction::Backward) std::reverse(out.begin(), out.end());
  return out;
}

using Hits = std::vector<std::tuple<uint64_t, uint64_t, uint64_t>>;  // eid, a detail, another

Hits executions_of(const Trace& t, uint64_t lo, uint64_t hi, QueryStart s) {
  ExecutionQuery q;
  q.pc_lo = lo;
  q.pc_hi = hi;
  q.start = s;
  auto r = find_executions(t, q, 0);
  REQUIRE(r.ok());
  Hits h;
  for (const auto& e : *r) h.emplace_back(e.eid, e.pc, e.next.eid);
  return h;
}

Hits accesses_of(const Trace& t, uint64_t addr, uint64_t len, AccessFilter kind, QueryStart s, size_t limit = 0) {
  MemoryQuery q;
  q.range = {addr, len};
  q.kind = kind;
  q.start = s;
  auto r = find_memory_accesses(t, q, limit);
  REQUIRE(r.ok());
  Hits h;
  for (const auto& a : *r) h.emplace_back(a.eid, a.addr, uint64_t(a.kind));
  return h;
}

Hits register_writes_of(const Trace& t, uint16_t reg, QueryStart s) {
  RegisterQuery q;
  q.reg = reg;
  q.start = s;
  auto r = find_register_writes(t, q, 0);
  REQUIRE(r.ok());
  Hits h;
  for (const auto& w : *r) h.emplace_back(w.eid, w.tid, w.value ? w.value->at(0) : 0xffff);
  return h;
}

std::optional<uint64_t> appearance_of(const std::shared_ptr<const Trace>& t, uint8_t last_byte, std::optional<AddressRange> within,
                                      EidWindow w) {
  TimeSearch q;
  q.pattern = {0xde, 0xad, 0xbe, last_byte};
  q.window = w;
  q.within = within;
  auto r = first_appearance(t, q);
  REQUIRE(r.ok());
  if (!*r) return std::nullopt;
  return (*r)->eid;
}

Stop run_to(const std::shared_ptr<const Trace>& t, uint64_t from, Direction d, const StopConditions& c) {
  Timeline tl(t);
  REQUIRE(tl.seek(from).ok());
  return tl.run(d, c);
}

// Every query's answers, in one comparable list; checks them against the
// rare steps on the way.
std::vector<Hits> all_answers(const std::shared_ptr<const Trace>& t) {
  std::vector<Hits> out;
  for (const EidWindow& w : windows())
    for (Direction d : {Direction::Forward, Direction::Backward}) {
      CAPTURE(w.from);
      CAPTURE(w.to);
      CAPTURE(int(d));
      const QueryStart s = window(w.from, w.to, d);
      const std::vector<uint64_t> want = rare_in(w, d);
      std::vector<uint64_t> got;

      out.push_back(executions_of(*t, kRarePc, kRarePc + 1, s));
      for (const auto& h : out.back()) got.push_back(std::get<0>(h));
      CHECK(got == want);
      out.push_back(executions_of(*t, kRarePc - 8, kRarePc + 8, s));  // probed pc by pc
      CHECK(out.back().size() == want.size());
      out.push_back(executions_of(*t, kNeverPc, kNeverPc + 1, s));
      CHECK(out.back().empty());
      out.push_back(executions_of(*t, 0x400000, 0x4a0001, s));  // too wide to probe: "maybe"
      CHECK(out.back().size() == w.to - w.from);  // every pc of the trace

      out.push_back(accesses_of(*t, kRareWritten + 2, 1, AccessFilter::Write, s));
      got.clear();
      for (const auto& h : out.back()) got.push_back(std::get<0>(h));
      CHECK(got == want);
      out.push_back(accesses_of(*t, kRareRead, 8, AccessFilter::Read, s));
      CHECK(out.back().size() == want.size());
      out.push_back(accesses_of(*t, kRareRead + 4, 2, AccessFilter::Access, s));
      CHECK(out.back().size() == want.size());
      out.push_back(accesses_of(*t, kRareWritten, 4, AccessFilter::Read, s));  // written, never read
      CHECK(out.back().empty());
      out.push_back(accesses_of(*t, kNeverTouched, 64, AccessFilter::Access, s));
      CHECK(out.back().empty());
      // The origin's last-writer lookup: the latest write before a position.
      out.push_back(accesses_of(*t, kRareWritten, 4, AccessFilter::Write, s, 1));
      CHECK(out.back().size() == std::min<size_t>(1, want.size()));

      out.push_back(register_writes_of(*t, kRareReg, s));
      got.clear();
      for (const auto& h : out.back()) got.push_back(std::get<0>(h));
      CHECK(got == want);
    }

  // First appearance of each rare step's bytes: right after it.
  for (size_t k = 0; k < kRare.size(); ++k) {
    CAPTURE(k);
    auto in_range = appearance_of(t, uint8_t(0x10 + k), AddressRange{kRareWritten, 64}, {0, kSteps});
    CHECK(in_range == kRare[k] + 1);
    out.push_back(Hits{{in_range.value_or(~0ull), 0, 0}});
  }
  out.push_back(Hits{{appearance_of(t, 0x10 + 3, std::nullopt, {0, kSteps}).value_or(~0ull), 0, 0}});
  CHECK(std::get<0>(out.back().front()) == kRare[3] + 1);
  out.push_back(Hits{{appearance_of(t, 0x10 + 4, AddressRange{kNeverTouched, 64}, {0, kSteps}).value_or(~0ull), 0, 0}});
  CHECK(std::get<0>(out.back().front()) == ~0ull);

  // Reverse-continue and continue to the rare pc and accesses, from every
  // rare step and both ends.
  StopConditions bp;
  bp.breakpoints = {kRarePc};
  StopConditions wr;
  wr.watchpoints = {Watchpoint{kRareWritten, 4, WatchKind::Write}};
  for (uint64_t from : {uint64_t(0), kSteps, uint64_t(512), uint64_t(5120), uint64_t(33280), uint64_t(20000)})
    for (Direction d : {Direction::Forward, Direction::Backward})
      for (const StopConditions* c : {&bp, &wr}) {
        Stop s = run_to(t, from, d, *c);
        CHECK_FALSE(s.error.has_value());
        out.push_back(Hits{{s.eid, uint64_t(s.kind), s.hit_eid}});
      }
  return out;
}

}  // namespace

TEST_CASE("history queries answer the same with the summary filters on and off") {
  RareHitTrace rt;
  auto t = rt.open();
  const IndexFile& idx = t->index();
  REQUIRE(idx.chunks_per_filter() * kChunkSteps == kGroupSteps);
  REQUIRE(idx.chunk(1).first_eid == kChunkSteps);
  REQUIRE(idx.table(IndexTable::PcFilters).group_entries == 64);
  REQUIRE(t->arch().find("r12") == kRareReg);

  const uint64_t before = ruled_out();
  const auto on = all_answers(t);
  CHECK(ruled_out() > before);
  std::vector<Hits> off;
  {
    FiltersOff no_filters;
    const uint64_t before_off = ruled_out();
    off = all_answers(t);
    CHECK(ruled_out() == before_off);
  }
  REQUIRE(on.size() == off.size());
  for (size_t i = 0; i < on.size(); ++i) {
    CAPTURE(i);
    CHECK(on[i] == off[i]);
  }
}

TEST_CASE("each history query for a key no step has rules summary groups out by their filters") {
  RareHitTrace rt;
  auto t = rt.open();
  const QueryStart all_back = window(0, kSteps, Direction::Backward);
  const uint64_t groups = (kSteps + kGroupSteps - 1) / kGroupSteps;
  auto groups_ruled_out = [](auto&& query) {
    const uint64_t before = ruled_out();
    query();
    return ruled_out() - before;
  };
  // Bloom filters answer "maybe" for ~1 % of absent keys per probe: the
  // bounds leave room for that.
  CHECK(groups_ruled_out([&] { CHECK(executions_of(*t, kNeverPc, kNeverPc + 1, all_back).empty()); }) >= groups * 3 / 4);
  CHECK(groups_ruled_out([&] { CHECK(executions_of(*t, kNeverPc, kNeverPc + 16, all_back).empty()); }) >= groups / 2);
  CHECK(groups_ruled_out([&] {
          CHECK(accesses_of(*t, kNeverTouched, 8, AccessFilter::Access, window(0, kSteps, Direction::Forward)).empty());
        }) >= groups * 3 / 4);
  // Only the rare steps' groups (8 of them) are read for the rare pc.
  CHECK(groups_ruled_out([&] { CHECK(executions_of(*t, kRarePc, kRarePc + 1, all_back).size() == kRare.size()); }) >=
        (groups - 8) * 3 / 4);
  CHECK(groups_ruled_out([&] {
          CHECK(appearance_of(t, 0x10, AddressRange{kNeverTouched, 64}, {0, kSteps}) == std::nullopt);
        }) >= groups * 3 / 4);
  // No filter holds registers (index version 11): every group is "maybe".
  CHECK(groups_ruled_out([&] { CHECK(register_writes_of(*t, kRareReg, all_back).size() == kRare.size()); }) == 0);
}

TEST_CASE("history queries over a damaged summary filter group answer as without filters") {
  RareHitTrace rt;
  std::vector<Hits> off;
  uint64_t bad_pcs = 0, bad_access = 0;
  {
    auto t = rt.open();
    FiltersOff no_filters;
    off = all_answers(t);
    // Filter table group 0 (summary groups 0-63) of both filter tables.
    bad_pcs = test::group_record(t->index(), IndexTable::PcFilters, 0).offset;
    bad_access = test::group_record(t->index(), IndexTable::AccessFilters, 0).offset;
  }
  test::flip_byte(rt.index(), bad_pcs + 5);
  test::flip_byte(rt.index(), bad_access + 5);
  auto t = rt.open();
  CHECK(t->stats().reused);
  CHECK_FALSE(t->index().pc_filter(0));
  CHECK_FALSE(t->index().access_filter(10));
  REQUIRE(t->index().pc_filter(70));
  const uint64_t before = ruled_out();
  const auto on = all_answers(t);
  CHECK(ruled_out() > before);  // the intact table group still rules groups out
  REQUIRE(on.size() == off.size());
  for (size_t i = 0; i < on.size(); ++i) {
    CAPTURE(i);
    CHECK(on[i] == off[i]);
  }
}
