// Cursor::at (engine/cursor.h): a cursor made at an EID, without the seek
// to 0 the constructor makes (the one-shot `ttd query` start-up). It must
// reach the same state as the constructor and a seek, and report the same
// errors.
#include <doctest/doctest.h>

#include "engine/cursor.h"
#include "temp_synthetic_trace.h"

using namespace ttd;

TEST_CASE("Cursor::at reaches the state of a cursor seeked there, at every EID") {
  test::TempSynthTrace tt(test::make_synthetic(300, 2, 9));
  auto t = Trace::open(tt.path, tt.options(16));
  REQUIRE(t.ok());
  const auto ref = test::reference_digests(*tt.synth);
  for (uint64_t e = 0; e <= 300; e += 7) {
    auto c = Cursor::at(*t, e);
    REQUIRE(c.ok());
    CHECK(c->eid() == e);
    CHECK_MESSAGE(c->state().digest() == ref[e], "EID ", e);
    Cursor seeked(*t);
    REQUIRE(seeked.seek(e).ok());
    CHECK(c->current_tid() == seeked.current_tid());
    CHECK(c->current_step().has_value() == seeked.current_step().has_value());
    // It moves on like any cursor.
    REQUIRE(c->seek(300 - e).ok());
    CHECK(c->state().digest() == ref[300 - e]);
  }
}

TEST_CASE("Cursor::at past the end is seek's error") {
  test::TempSynthTrace tt(test::make_synthetic(50, 1, 3));
  auto t = Trace::open(tt.path, tt.options(16));
  REQUIRE(t.ok());
  auto c = Cursor::at(*t, 51);
  REQUIRE_FALSE(c.ok());
  Cursor seeked(*t);
  auto s = seeked.seek(51);
  REQUIRE_FALSE(s.ok());
  CHECK(c.error().to_string() == s.error().to_string());
}
