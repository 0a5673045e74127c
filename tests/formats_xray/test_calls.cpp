// Call stacks and call extraction.
#include <doctest/doctest.h>

#include "fdr_writer.h"
#include "formats/xray/call_stack.h"
#include "formats/xray/xray_calls.h"
#include "formats/xray/xray_pipeline.h"
#include "test_support.h"

using namespace ttd::fmt::xray;
using namespace xray_test;

namespace {

XrayEvent ev(EventKind k, uint32_t fn, uint64_t eid, uint64_t tsc, uint64_t tid = 1) {
  XrayEvent e;
  e.kind = k;
  e.func_id = fn;
  e.eid = eid;
  e.tsc = tsc;
  e.tid = tid;
  e.pid = 9;
  return e;
}

}  // namespace

TEST_CASE("calls of a real single-thread log") {
  auto calls = collect_xray_calls(data("fdr-v5-single-thread.xray"));
  REQUIRE(calls.ok());
  // fn(); fn2(3) { fn(); }
  REQUIRE(calls->size() == 3);
  const Call& a = (*calls)[0];
  CHECK(a.func_id == 1);
  CHECK(a.entry_eid == 0u);
  CHECK(a.exit_eid == 1u);
  CHECK(a.duration() == 4306u);
  CHECK(a.depth == 0);
  const Call& b = (*calls)[1];
  CHECK(b.func_id == 2);
  CHECK(b.entry_eid == 2u);
  CHECK(b.exit_eid == 5u);
  CHECK(b.duration() == 1795399379324887850ull - 1795399379324887540ull);
  const Call& c = (*calls)[2];
  CHECK(c.func_id == 1);
  CHECK(c.depth == 1);
  CHECK(c.entry_eid == 3u);
  CHECK(c.tid == 5768);
  CHECK(c.pid == 5768);
}

TEST_CASE("every call of the 3-thread log pairs an entry step with an exit step") {
  auto path = data("fdr-v5-3threads-arg1-O0.xray");
  CollectEvents events;
  REQUIRE(read_xray_events(path, events).ok());
  auto calls = collect_xray_calls(path);
  REQUIRE(calls.ok());
  size_t with_args = 0;
  for (const Call& c : *calls) {
    REQUIRE(c.entry_eid);
    REQUIRE(c.exit_eid);
    const XrayEvent& in = events.events[*c.entry_eid];
    const XrayEvent& out = events.events[*c.exit_eid];
    CHECK(is_entry(in.kind));
    CHECK(out.kind == EventKind::Exit);
    CHECK(in.func_id == c.func_id);
    CHECK(out.func_id == c.func_id);
    CHECK(in.tid == c.tid);
    CHECK(c.entry_tsc == in.tsc);
    CHECK(c.exit_tsc == out.tsc);
    CHECK(c.args == in.args);
    CHECK_FALSE(c.unwound);
    with_args += !c.args.empty();
  }
  CHECK(calls->size() == 761);
  CHECK(with_args == 150);
  for (size_t i = 1; i < calls->size(); ++i) CHECK(*(*calls)[i - 1].entry_eid < *(*calls)[i].entry_eid);
}

TEST_CASE("stack per thread, unwinding, tail exits, exits without entry, open calls") {
  std::vector<Call> calls;
  CallStackTracker t([&](const Call& c) { calls.push_back(c); });
  REQUIRE(t.on_event(ev(EventKind::Enter, 1, 0, 100)).ok());
  auto withargs = ev(EventKind::EnterArgs, 2, 1, 110);
  withargs.args = {5, 6};
  REQUIRE(t.on_event(withargs).ok());
  REQUIRE(t.on_event(ev(EventKind::Enter, 7, 2, 115, 2)).ok());  // another thread
  REQUIRE(t.on_event(ev(EventKind::Enter, 3, 3, 120)).ok());
  REQUIRE(t.stack(1).size() == 3);
  CHECK(t.stack(1)[1].args == std::vector<uint64_t>{5, 6});
  CHECK(t.top(2)->func_id == 7);
  CHECK(t.top(3) == nullptr);
  // Exit of 2 while 3 is open: 3 is unwound.
  REQUIRE(t.on_event(ev(EventKind::Exit, 2, 4, 150)).ok());
  REQUIRE(calls.size() == 2);
  CHECK(calls[0].func_id == 3);
  CHECK(calls[0].unwound);
  CHECK(calls[0].exit_eid == 4u);
  CHECK(calls[1].func_id == 2);
  CHECK_FALSE(calls[1].unwound);
  CHECK(calls[1].args == std::vector<uint64_t>{5, 6});
  CHECK(calls[1].duration() == 40u);
  CHECK(calls[1].depth == 1);
  // Tail exit closes like an exit.
  REQUIRE(t.on_event(ev(EventKind::TailExit, 1, 5, 160)).ok());
  CHECK(calls.back().tail_exit);
  CHECK(t.stack(1).empty());
  // An exit with no entry in the trace.
  REQUIRE(t.on_event(ev(EventKind::Exit, 4, 6, 170)).ok());
  CHECK_FALSE(calls.back().entry_eid);
  CHECK_FALSE(calls.back().duration());
  CHECK(t.exits_without_entry() == 1);
  // Events do not touch stacks.
  REQUIRE(t.on_event(ev(EventKind::Custom, 0, 7, 175, 2)).ok());
  CHECK(t.stack(2).size() == 1);
  t.finish();
  CHECK(calls.back().func_id == 7);
  CHECK_FALSE(calls.back().exit_eid);
  CHECK(calls.back().entry_eid == 2u);
  CHECK(t.stack(2).empty());
}

TEST_CASE("calls across the runtime bug: each cut shows as a call without entry") {
  // Each of the three cut CallArgument records took the entry after it
  // along; the exits of those calls remain.
  auto path = data("generated/fdr-v5-clang14-events-tscwrap.xray");
  XrayReport rep;
  auto calls = collect_xray_calls(path, &rep);
  REQUIRE(calls.ok());
  size_t cut = 0;
  for (const auto& r : rep.recoveries) cut += r.certain;
  CHECK(cut == 3);
  size_t entryless = 0, unwound = 0;
  for (const Call& c : *calls) {
    entryless += !c.entry_eid;
    unwound += c.unwound;
  }
  CHECK(entryless == cut);
  CHECK(unwound == 0);
}
