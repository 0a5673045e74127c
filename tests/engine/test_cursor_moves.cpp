// Stepping, continuing, breakpoints and watchpoints in both directions,
// checked against brute-force answers computed from the synthetic stream.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "engine/motion/timeline.h"
#include "engine/index_file.h"
#include "temp_synthetic_trace.h"

using namespace ttd;
namespace fs = std::filesystem;

namespace {

struct Fixture {
  test::TempSynthTrace tmp;
  std::shared_ptr<test::SynthTrace> synth;
  std::shared_ptr<Trace> trace;
  Fixture(uint64_t steps, uint32_t threads, ArchId arch = ArchId::X86_64)
      : tmp(test::make_synthetic(steps, threads, 5, arch)), synth(tmp.synth) {
    auto t = Trace::open(tmp.path, tmp.options(32));
    REQUIRE(t.ok());
    trace = *t;
  }
  // Brute force: does step e write/read [addr, addr+len)?
  bool accesses(uint64_t e, uint64_t addr, uint64_t len, bool write) const {
    for (const auto& x : synth->steps[e].effects) {
      bool w = x.kind == test::SynthEffect::Write, r = x.kind == test::SynthEffect::Read;
      if (!(write ? w : r)) continue;
      if (x.addr < addr + len && addr < x.addr + x.bytes.size()) return true;
    }
    return false;
  }
};

}  // namespace

TEST_CASE("forward and reverse continue stop at breakpoints like rr") {
  Fixture f(1000, 1);
  const uint64_t bp = 0x402008;  // pc of steps with i%7==6 and (i/7)%3==1
  std::vector<uint64_t> hits;
  for (uint64_t e = 0; e < 1000; ++e)
    if (f.synth->steps[e].info.pc == bp) hits.push_back(e);
  REQUIRE(hits.size() > 10);
  Timeline c(f.trace);
  StopConditions sc;
  sc.breakpoints = {bp};
  // Forward from 0 visits every hit in order, then the end of history.
  for (uint64_t h : hits) {
    Stop s = c.run(Direction::Forward, sc);
    CHECK(s.kind == StopKind::Breakpoint);
    CHECK(s.eid == h);
    CHECK(c.eid() == h);
    CHECK(c.state().find_thread(s.tid)->regs.get_u64(f.trace->arch().pc_index) == bp);
  }
  Stop end = c.run(Direction::Forward, sc);
  CHECK(end.kind == StopKind::HistoryEnd);
  CHECK(c.eid() == 1000);
  // Backward from the end visits them in reverse; the starting pc is skipped.
  for (size_t i = hits.size(); i-- > 0;) {
    Stop s = c.run(Direction::Backward, sc);
    CHECK(s.kind == StopKind::Breakpoint);
    CHECK(s.eid == hits[i]);
  }
  Stop begin = c.run(Direction::Backward, sc);
  CHECK(begin.kind == StopKind::HistoryBegin);
  CHECK(c.eid() == 0);
}

TEST_CASE("reverse-stepi undoes exactly one step and stepi redoes it") {
  Fixture f(300, 1);
  Timeline c(f.trace);
  REQUIRE(c.seek(150).ok());
  uint64_t d150 = c.state().digest();
  Stop s = c.step(Direction::Backward);
  CHECK(s.kind == StopKind::Step);
  CHECK(c.eid() == 149);
  s = c.step(Direction::Forward);
  CHECK(c.eid() == 150);
  CHECK(c.state().digest() == d150);
  REQUIRE(c.seek(0).ok());
  CHECK(c.step(Direction::Backward).kind == StopKind::HistoryBegin);
  REQUIRE(c.seek(299).ok());
  CHECK(c.step(Direction::Forward).kind == StopKind::HistoryEnd);
  CHECK(c.eid() == 300);
}

TEST_CASE("per-thread steps skip the other threads' steps in both directions") {
  Fixture f(400, 3);  // threads take turns every 5 steps
  Timeline c(f.trace);
  REQUIRE(c.seek(3).ok());
  uint64_t t0 = c.current_tid();
  Stop s = c.step(Direction::Forward, t0);
  CHECK(s.eid == 4);
  s = c.step(Direction::Forward, t0);
  CHECK(s.eid == 15);  // threads 101 and 102 ran 5..14
  CHECK(c.current_tid() == t0);
  s = c.step(Direction::Backward, t0);
  CHECK(s.eid == 4);
  uint64_t t1 = 101;
  s = c.step(Direction::Forward, t1);  // t1's next step (5) runs, stop at its following one
  CHECK(s.eid == 6);
  CHECK(c.current_tid() == t1);
}

TEST_CASE("write watchpoints on x86: forward stops after the write, reverse before it") {
  Fixture f(1000, 1);
  const uint64_t addr = 0x10100 + 9 * 8;  // written at steps i%7==2 && i%64==9
  std::vector<uint64_t> writes;
  for (uint64_t e = 0; e < 1000; ++e)
    if (f.accesses(e, addr, 2, true)) writes.push_back(e);
  REQUIRE(writes.size() >= 1);
  Timeline c(f.trace);
  StopConditions sc;
  sc.watchpoints = {{addr, 2, WatchKind::Write}};
  for (uint64_t w : writes) {
    Stop s = c.run(Direction::Forward, sc);
    CHECK(s.kind == StopKind::Watchpoint);
    CHECK(s.hit_eid == w);
    CHECK(c.eid() == w + 1);
    CHECK(s.addr == addr);
  }
  CHECK(c.run(Direction::Forward, sc).kind == StopKind::HistoryEnd);
  for (size_t i = writes.size(); i-- > 0;) {
    Stop s = c.run(Direction::Backward, sc);
    CHECK(s.kind == StopKind::Watchpoint);
    CHECK(c.eid() == writes[i]);
  }
  CHECK(c.run(Direction::Backward, sc).kind == StopKind::HistoryBegin);
}

TEST_CASE("read watchpoints and the before-access timing of aarch64") {
  Fixture f(600, 1, ArchId::AArch64);
  const uint64_t addr = 0x10100 + 11 * 8;
  std::vector<uint64_t> reads;
  for (uint64_t e = 0; e < 600; ++e)
    if (f.accesses(e, addr, 1, false)) reads.push_back(e);
  REQUIRE(!reads.empty());
  Timeline c(f.trace);
  StopConditions sc;
  sc.watchpoints = {{addr, 1, WatchKind::Read}};
  Stop s = c.run(Direction::Forward, sc);
  CHECK(s.kind == StopKind::Watchpoint);
  CHECK(c.eid() == reads[0]);  // before the access
  REQUIRE(c.seek(600).ok());
  s = c.run(Direction::Backward, sc);
  CHECK(c.eid() == reads.back() + 1);  // after the access
}

TEST_CASE("an interrupt stops a long run") {
  // Index version 11: a scan the summary filters rule out polls once per
  // skipped summary group (32 chunks of 32 steps), so the trace spans six.
  Fixture f(6000, 1);
  Timeline c(f.trace);
  StopConditions sc;
  sc.breakpoints = {0xdead};  // never hit
  int polls = 0;
  Stop s = c.run(Direction::Forward, sc, [&] { return ++polls > 3; });
  CHECK(s.kind == StopKind::Interrupted);
  CHECK(c.eid() > 0);
}

TEST_CASE("chunk summaries: 8-byte slots of a line tell its variables apart") {
  ChunkSummary m;
  const uint64_t line = 0x7fffffffe740;  // a stack frame's line: n at +0x18, i and counter at +0x30, +0x38
  m.pages_written = {line >> kPageShift};
  m.lines_written = {line >> ChunkSummary::kLineShift};
  m.line_slots_written = {0xc0};  // slots 6 and 7 written
  CHECK(!m.writes(line + 0x18, 8));   // n: never written in the chunk
  CHECK(!m.writes(line, 0x30));       // slots 0-5
  CHECK(m.writes(line + 0x30, 8));    // i
  CHECK(m.writes(line + 0x2f, 2));    // straddles slots 5 and 6
  CHECK(m.writes(line + 0x3c, 8));    // straddles into the next line, from slot 7
  CHECK(!m.writes(line + 0x40, 8));   // the next line
  CHECK(m.writes(line - 8, 0x100));   // across the whole line
  CHECK(!m.reads(line + 0x30, 8));    // nothing read
  // Slots of several lines, found by the right line's mask.
  m.lines_written = {line >> ChunkSummary::kLineShift, (line >> ChunkSummary::kLineShift) + 1};
  m.line_slots_written = {0x01, 0x80};
  CHECK(m.writes(line, 1));
  CHECK(!m.writes(line + 8, 0x70));  // slot 1 of the first line to slot 6 of the second
  CHECK(m.writes(line + 8, 0x78));   // ... to slot 7 of the second
}

TEST_CASE("chunk summaries: never deny an access (soundness), and see 64-byte lines, not just pages") {
  Fixture f(3000, 2);
  const auto chunks = f.trace->index().load_all_chunks();
  // Every 8-byte slot of every page the synthetic trace touches.
  std::vector<uint64_t> pages;
  for (const auto& s : f.synth->steps)
    for (const auto& x : s.effects)
      if (x.kind == test::SynthEffect::Write || x.kind == test::SynthEffect::Read) pages.push_back(x.addr >> kPageShift);
  std::sort(pages.begin(), pages.end());
  pages.erase(std::unique(pages.begin(), pages.end()), pages.end());
  REQUIRE(!pages.empty());
  int unsound = 0, finer_than_pages = 0, finer_than_lines = 0;
  for (const auto& ch : chunks) {
    for (uint64_t page : pages) {
      for (uint64_t addr = page << kPageShift; addr < (page + 1) << kPageShift; addr += 8) {
        for (bool write : {true, false}) {
          bool said = write ? ch.summary.writes(addr, 8) : ch.summary.reads(addr, 8);
          bool any = false;
          for (uint64_t e = ch.first_eid; e < ch.first_eid + ch.steps && !any; ++e) any = f.accesses(e, addr, 8, write);
          if (any && !said) ++unsound;
          const auto& page_list = write ? ch.summary.pages_written : ch.summary.pages_read;
          if (!any && !said && std::binary_search(page_list.begin(), page_list.end(), page)) ++finer_than_pages;
          const auto& lines = write ? ch.summary.lines_written : ch.summary.lines_read;
          if (!any && !said && std::binary_search(lines.begin(), lines.end(), addr >> ChunkSummary::kLineShift))
            ++finer_than_lines;
        }
      }
    }
  }
  CHECK(unsound == 0);
  CHECK(finer_than_pages > 0);  // fails if the summaries fall back to pages
  CHECK(finer_than_lines > 0);  // fails if the summaries ignore the lines' slots
}
