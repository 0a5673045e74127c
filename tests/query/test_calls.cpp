// Calls: pairing on a UCIR program with real code bytes (Capstone), the
// same program without code (pc/sp heuristics), windows, filters, both
// orders; XRay traces through their native events.
#include <doctest/doctest.h>

#include <map>

#include "call_program.h"
#include "engine/query/calls.h"
#include "query_fixture.h"

using namespace ttd;
using namespace ttd::query;

namespace {

std::vector<Call> all_calls(std::shared_ptr<const Trace> t, CallQuery q) {
  auto r = find_calls(t, q, 0);
  REQUIRE_MESSAGE(r.ok(), r.error().to_string());
  return *r;
}

CallQuery whole(const Trace& t) {
  CallQuery q;
  q.window = {0, t.step_count()};
  return q;
}

// Steps of iteration i start at i * (7 + spin): call f, mov, call g, mov, ret, ret, jmp, [spin].
void check_program_calls(const std::vector<Call>& calls, uint64_t iterations, uint64_t spin) {
  REQUIRE(calls.size() == 2 * iterations);
  uint64_t per = 7 + spin;
  for (uint64_t i = 0; i < iterations; ++i) {
    const Call& f = calls[2 * i];
    const Call& g = calls[2 * i + 1];
    CHECK(f.index == 2 * i);
    CHECK(f.function == test::kF);
    CHECK(f.call_site == test::kMain);
    CHECK(f.entry_eid == i * per);
    CHECK(f.exit_eid == i * per + 5);
    CHECK(f.exit == CallExit::Return);
    CHECK(f.depth == 0);
    CHECK(f.return_value == 7);
    CHECK(g.function == test::kG);
    CHECK(g.call_site == test::kF + 5);
    CHECK(g.entry_eid == i * per + 2);
    CHECK(g.exit_eid == i * per + 4);
    CHECK(g.depth == 1);
    CHECK(g.return_value == 7);
  }
}

}  // namespace

TEST_CASE("call/return pairing from code bytes and from heuristics") {
  for (bool with_code : {true, false}) {
    for (uint64_t spin : {0ull, 300ull}) {
      test::FileFixture file("calls.ucir");
      REQUIRE(test::write_call_program(file.path, {40, with_code, spin}).ok());
      auto t = file.open(64);
      REQUIRE_MESSAGE(t.ok(), t.error().to_string());
      check_program_calls(all_calls(*t, whole(**t)), 40, spin);

      auto w = CallWalker::create(*t, whole(**t));
      REQUIRE(w.ok());
      while (true) {
        auto c = (*w)->next();
        REQUIRE(c.ok());
        if (!*c) break;
      }
      const CallStats& st = (*w)->stats();
      CHECK(st.calls == 80);
      CHECK(st.orphan_returns == 0);
      if (with_code) CHECK(st.pcs_unknown == 0);
      if (with_code && spin) CHECK(st.chunks_skipped > 0);
    }
  }
}

TEST_CASE("calls in exit order, filtered by function, depth and window") {
  test::FileFixture file("calls.ucir");
  REQUIRE(test::write_call_program(file.path, {10, true, 0}).ok());
  auto t = file.open(16);
  REQUIRE(t.ok());
  CallQuery q = whole(**t);
  q.order = CallOrder::Exit;
  auto post = all_calls(*t, q);
  REQUIRE(post.size() == 20);
  CHECK(post[0].function == test::kG);  // g returns before f
  CHECK(post[1].function == test::kF);

  q = whole(**t);
  q.function = test::kG;
  auto gs = all_calls(*t, q);
  REQUIRE(gs.size() == 10);
  for (auto& c : gs) CHECK(c.function == test::kG);

  q = whole(**t);
  q.max_depth = 0;
  CHECK(all_calls(*t, q).size() == 10);

  // A window starting inside f: the return from f is an orphan, g is complete.
  q = whole(**t);
  q.window.from = 1;
  auto w = CallWalker::create(*t, q);
  REQUIRE(w.ok());
  auto first = (*w)->next();
  REQUIRE(first.ok());
  REQUIRE(first->has_value());
  CHECK((**first).function == test::kG);
  CHECK((**first).depth == 0);

  // A window ending inside g: f and g are open.
  q = whole(**t);
  q.window.to = 3;
  auto open = all_calls(*t, q);
  REQUIRE(open.size() == 2);
  CHECK(open[0].exit == CallExit::Open);
  CHECK(!open[1].exit_eid.has_value());
}

// The engine is the one place XRay calls are paired (formats/xray only
// reads events). Its answer against a brute-force per-thread stack on
// logs with one thread, with three threads and arguments, and with the
// clang 14 runtime bug's cut records (three exits without their entry).
TEST_CASE("XRay calls pair enter and exit events") {
  struct Log {
    const char* file;
    size_t calls;
    uint64_t orphans;
  };
  for (const Log& log : {Log{"fdr-v5-single-thread.xray", 3, 0}, Log{"fdr-v5-3threads-arg1-O0.xray", 761, 0},
                         Log{"generated/fdr-v5-clang14-events-tscwrap.xray", 0, 3}}) {
    CAPTURE(log.file);
    std::string data = std::string(TTD_QUERY_TEST_DATA) + "/xray/" + log.file;
    auto t = Trace::open(data, [] {
      OpenOptions o;
      o.index_path = test::temp_path("xray.ttdidx");
      return o;
    }());
    REQUIRE_MESSAGE(t.ok(), t.error().to_string());
    // Brute force: a per-thread stack of (function, enter eid).
    std::map<uint64_t, std::vector<std::pair<uint64_t, uint64_t>>> stacks;
    std::map<uint64_t, std::pair<uint64_t, CallExit>> exit_of;  // enter eid -> exit eid, how
    std::map<uint64_t, std::vector<uint64_t>> args_of;
    std::vector<uint64_t> enters;
    uint64_t orphans = 0;
    auto s = (*t)->for_each_step(0, (*t)->step_count(), [&](const StepRecord& r) {
      uint64_t fn = ~0ull;
      for (auto& [k, v] : r.attrs) {
        if (k == "function") fn = std::get<uint64_t>(v);
        if (k == "args") args_of[r.eid] = std::get<std::vector<uint64_t>>(v);
      }
      auto& st = stacks[r.info.tid];
      if (r.info.kind == fmt::StepKind::FunctionEnter) {
        st.push_back({fn, r.eid});
        enters.push_back(r.eid);
      } else if (r.info.kind == fmt::StepKind::FunctionExit || r.info.kind == fmt::StepKind::FunctionTailExit) {
        size_t pos = st.size();
        while (pos > 0 && st[pos - 1].first != fn) --pos;
        if (pos == 0) {  // its enter came before the trace, or was lost
          ++orphans;
          return true;
        }
        CallExit how = r.info.kind == fmt::StepKind::FunctionTailExit ? CallExit::TailExit : CallExit::Return;
        while (st.size() > pos) {
          exit_of[st.back().second] = {r.eid, CallExit::Unwound};
          st.pop_back();
        }
        exit_of[st.back().second] = {r.eid, how};
        st.pop_back();
      }
      return true;
    });
    REQUIRE(s.ok());
    REQUIRE(!enters.empty());
    if (log.calls) CHECK(enters.size() == log.calls);
    CHECK(orphans == log.orphans);
    auto walker = CallWalker::create(*t, whole(**t));
    REQUIRE(walker.ok());
    std::vector<Call> calls;
    for (;;) {
      auto c = (*walker)->next();
      REQUIRE(c.ok());
      if (!*c) break;
      calls.push_back(std::move(**c));
    }
    CHECK((*walker)->stats().orphan_returns == orphans);
    REQUIRE(calls.size() == enters.size());
    for (size_t i = 0; i < calls.size(); ++i) {
      CHECK(calls[i].entry_eid == enters[i]);
      auto it = exit_of.find(enters[i]);
      if (it == exit_of.end()) {
        CHECK(!calls[i].exit_eid.has_value());
        CHECK(calls[i].exit == CallExit::Open);
      } else {
        CHECK(calls[i].exit_eid == it->second.first);
        CHECK(calls[i].exit == it->second.second);
      }
      auto a = args_of.find(enters[i]);
      CHECK(calls[i].args == (a == args_of.end() ? std::vector<uint64_t>{} : a->second));
    }
    std::remove((*t)->stats().index_path.c_str());
  }
}
