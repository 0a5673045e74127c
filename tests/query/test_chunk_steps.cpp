// The one chunk decoder (engine/chunk_steps.h) that motion searches and
// history queries share: every step of every chunk against the synthetic
// stream it was indexed from, a chunk loaded again (its kept step stream)
// decodes the same steps and effects from the start, and a motion search
// (engine/chunk_scan.h) stops where the decoder finds the breakpoint's pc.
#include <doctest/doctest.h>

#include <cstring>

#include "engine/chunk_scan.h"
#include "engine/chunk_steps.h"
#include "query_fixture.h"

using namespace ttd;

namespace {

// Counts the memory writes a step's effects report, with a byte checksum.
struct WriteTally : EffectVisitor {
  uint64_t writes = 0, sum = 0;
  void reg(uint32_t, uint16_t, const uint8_t*, uint32_t) override {}
  void mem_write(uint64_t, uint64_t addr, const uint8_t* data, uint64_t len) override {
    ++writes;
    sum = sum * 31 + addr;
    for (uint64_t i = 0; i < len; ++i) sum = sum * 31 + data[i];
  }
  void mem_read(uint64_t, uint64_t, uint64_t, const uint8_t*) override {}
};

}  // namespace

TEST_CASE("chunk steps: every step of every chunk, as the trace gave it") {
  test::SynthFixture f(1000, 3, 7, 64);
  REQUIRE(f.trace);
  ChunkSteps steps(*f.trace);
  REQUIRE(steps.chunk_count() > 10);
  uint64_t eid = 0;
  for (size_t c = 0; c < steps.chunk_count(); ++c) {
    REQUIRE(steps.load(c).ok());
    while (steps.next()) {
      const ChunkStep& s = steps.step();
      REQUIRE(eid < f.synth->steps.size());
      const fmt::StepInfo& want = f.synth->steps[eid].info;
      CHECK(s.eid == eid);
      CHECK(s.pc == want.pc);
      CHECK(s.tid == want.tid);
      CHECK(steps.chunk_of(s.eid) == c);
      ++eid;
    }
    CHECK(steps.status().ok());
  }
  CHECK(eid == f.synth->steps.size());
}

TEST_CASE("chunk steps: a chunk loaded again decodes the same steps and effects from its start") {
  test::SynthFixture f(600, 2, 11, 64);
  REQUIRE(f.trace);
  ChunkSteps steps(*f.trace);
  const size_t c = 3;
  auto pass = [&](size_t stop_after) {
    REQUIRE(steps.load(c).ok());
    std::vector<std::pair<uint64_t, uint64_t>> seen;  // (eid, write checksum)
    while (seen.size() < stop_after && steps.next()) {
      WriteTally t;
      REQUIRE(steps.effects(t));
      seen.emplace_back(steps.step().eid, t.sum * 1000003 + t.writes);
    }
    return seen;
  };
  auto whole = pass(SIZE_MAX);
  REQUIRE(whole.size() == 64);
  auto part = pass(5);  // leaves the decoder in the middle of the chunk
  CHECK(part == std::vector<std::pair<uint64_t, uint64_t>>(whole.begin(), whole.begin() + 5));
  REQUIRE(steps.load(c + 1).ok());
  CHECK(pass(SIZE_MAX) == whole);  // back after another chunk
}

TEST_CASE("chunk steps: a motion search stops where the decoder finds the breakpoint") {
  test::SynthFixture f(2000, 2, 5, 64);
  REQUIRE(f.trace);
  ChunkSteps steps(*f.trace);
  const uint64_t start = 777;
  // The pc of a step well after the start; its first execution after the
  // start, by decoding every chunk.
  const uint64_t pc = f.synth->steps[start + 300].info.pc;
  uint64_t first = 0;
  bool found = false;
  for (size_t c = steps.chunk_of(start); c < steps.chunk_count() && !found; ++c) {
    REQUIRE(steps.load(c).ok());
    while (steps.next())
      if (steps.step().eid > start && steps.step().pc == pc) {
        first = steps.step().eid;
        found = true;
        break;
      }
  }
  REQUIRE(found);
  StopConditions cond;
  cond.breakpoints.push_back(pc);
  ScanHit hit = ChunkScan(*f.trace).find_stop_forward(start, cond, nullptr);
  REQUIRE(hit.found);
  CHECK(hit.eid == first);
}

TEST_CASE("chunk steps: a chunk past the end is an error naming the chunk") {
  test::SynthFixture f(100, 1, 3, 64);
  REQUIRE(f.trace);
  ChunkSteps steps(*f.trace);
  auto s = steps.load(steps.chunk_count() + 5);
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().message.find("chunk") != std::string::npos);
  CHECK_FALSE(steps.next());
}
