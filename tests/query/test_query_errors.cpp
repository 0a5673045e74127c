// Bad input to every query is an error that says what is wrong.
#include <doctest/doctest.h>

#include "engine/query/calls.h"
#include "engine/query/executions.h"
#include "engine/query/memory_history.h"
#include "engine/query/register_history.h"
#include "engine/query/value_search.h"
#include "query_fixture.h"

using namespace ttd;
using namespace ttd::query;

namespace {
template <class R>
std::string error_of(const R& r) {
  REQUIRE(!r.ok());
  return r.error().to_string();
}
bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }
}  // namespace

TEST_CASE("windows: reversed, empty and out-of-range EIDs") {
  test::SynthFixture f(100, 1, 1);
  REQUIRE(f.trace);
  const Trace& t = *f.trace;
  CHECK(has(error_of(make_window(t, 50, 10)), "reversed EID window"));
  CHECK(has(error_of(make_window(t, 10, 10)), "empty EID window"));
  CHECK(has(error_of(make_window(t, 101, std::nullopt)), "EID 101 is out of range (the trace has 100 steps"));
  CHECK(has(error_of(make_window(t, std::nullopt, 1000)), "to: EID 1000 is out of range"));
  CHECK(make_window(t, std::nullopt, std::nullopt).ok());

  MemoryQuery q;
  q.range = {0x10000, 4};
  q.start.window = {60, 20};
  CHECK(has(error_of(find_memory_accesses(t, q, 0)), "reversed"));
  q.start.window = {0, 200};
  CHECK(has(error_of(find_memory_accesses(t, q, 0)), "out of range"));
  q.start.window = {0, 100};
  q.start.resume = ResumeToken{100, 0};
  CHECK(has(error_of(find_memory_accesses(t, q, 0)), "outside the query's window"));
}

TEST_CASE("address ranges: empty and overflowing") {
  test::SynthFixture f(100, 1, 1);
  REQUIRE(f.trace);
  MemoryQuery q;
  q.start.window = {0, 100};
  q.range = {0x1000, 0};
  CHECK(has(error_of(find_memory_accesses(*f.trace, q, 0)), "empty address range"));
  q.range = {~0ull - 3, 16};
  CHECK(has(error_of(find_memory_accesses(*f.trace, q, 0)), "overflows"));
  q.range = {~0ull - 3, 4};  // up to the very top is fine
  CHECK(find_memory_accesses(*f.trace, q, 0).ok());
  CHECK(has(error_of(make_range(5, 0)), "empty"));
}

TEST_CASE("resume tokens parse and print") {
  CHECK(*parse_resume_token("1234") == ResumeToken{1234, 0});
  CHECK(*parse_resume_token("1234+2") == ResumeToken{1234, 2});
  CHECK(to_string(ResumeToken{7, 3}) == "7+3");
  CHECK(has(error_of(parse_resume_token("12x")), "expected EID or EID+SKIP"));
  CHECK(has(error_of(parse_resume_token("")), "expected EID"));
}

TEST_CASE("registers, executions, calls and searches reject bad positions") {
  test::SynthFixture f(100, 1, 1);
  REQUIRE(f.trace);
  CHECK(has(error_of(previous_register_write(*f.trace, 0, 101)), "out of range"));
  RegisterQuery rq;
  rq.reg = 999;
  rq.start.window = {0, 100};
  CHECK(has(error_of(find_register_writes(*f.trace, rq, 0)), "not on x86_64"));

  ExecutionQuery eq;
  eq.pc_lo = 0x401000;
  eq.pc_hi = 0x401001;
  eq.start.window = {5, 5};
  CHECK(has(error_of(find_executions(*f.trace, eq, 0)), "empty EID window"));

  CallQuery cq;
  cq.window = {0, 500};
  CHECK(has(error_of(find_calls(f.trace, cq, 0)), "out of range"));

  SpaceSearch sq;
  sq.pattern = {1};
  sq.at = 101;
  CHECK(has(error_of(search_memory(f.trace, sq)), "out of range"));
  sq.at = 0;
  sq.pattern.clear();
  CHECK(has(error_of(search_memory(f.trace, sq)), "empty byte pattern"));
  sq.pattern = {1, 2, 3};
  sq.within = AddressRange{0x10000, 2};
  CHECK(has(error_of(search_memory(f.trace, sq)), "shorter than the pattern"));

  TimeSearch tq;
  tq.pattern = {1};
  tq.window = {50, 10};
  CHECK(has(error_of(first_appearance(f.trace, tq)), "reversed"));
}

TEST_CASE("a cancelled query stops with an error") {
  test::SynthFixture f(2000, 1, 1, 16);
  REQUIRE(f.trace);
  MemoryQuery q;
  q.range = {0x10100, 0x200};
  q.start.window = {0, 2000};
  int polls = 0;
  q.cancel = [&] { return ++polls > 3; };
  CHECK(has(error_of(find_memory_accesses(*f.trace, q, 0)), "interrupted"));
}
