// The motion suite's watchpoints (issue 18): continue both ways with
// watchpoints of every size, alignment and kind, against the oracle; the
// values a stop shows for a write that covers part of the range and for a
// range that two writes of one step each cover a piece of; single steps
// (gdb's s / bs) under the one timing rule; and the RISC step out without
// code bytes in the trace (PowerPC bl / blr, code from the program's ELF).
#include <doctest/doctest.h>

#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include "motion_suite.h"

using namespace ttd;
using test::kArches;
using test::Suite;

TEST_CASE("motion suite: continue to watchpoints of every size and overlap, both ways, on every arch") {
  for (ArchId arch : kArches) {
    CAPTURE(arch_desc(arch).name);
    Suite s(arch, 2);
    Timeline tl(s.trace);
    for (uint64_t len : {1, 2, 3, 4, 8, 16})
      for (uint64_t off : {0, 5, 13, 30, 63})
        for (WatchKind kind : {WatchKind::Write, WatchKind::Read, WatchKind::Access}) {
          Watchpoint w{test::kMotionData + off, len, kind};
          CAPTURE(len);
          CAPTURE(off);
          CAPTURE(int(kind));
          std::vector<uint64_t> acc;
          for (uint64_t k = 0; k < s.count(); ++k)
            if (s.hits(k, w)) acc.push_back(k);
          StopConditions c;
          c.watchpoints = {Watchpoint{0x9000, 8, WatchKind::Access}, w};  // a first one that never hits
          // Forward from the start: every access whose stop lies ahead, in order.
          REQUIRE(tl.seek(0).ok());
          for (uint64_t k : acc) {
            if (s.stop_of(k, Direction::Forward) == 0) continue;
            Stop st = tl.run(Direction::Forward, c);
            REQUIRE(st.kind == StopKind::Watchpoint);
            CHECK(st.hit_eid == k);
            CHECK(st.eid == s.stop_of(k, Direction::Forward));
            CHECK(st.watch_index == 1);
            CHECK(st.addr == w.addr);
            CHECK(st.access_tid == s.prog.steps[k].tid);
          }
          CHECK(tl.run(Direction::Forward, c).kind == StopKind::HistoryEnd);
          // Backward from the end: the same accesses, newest first.
          for (size_t i = acc.size(); i-- > 0;) {
            if (s.stop_of(acc[i], Direction::Backward) == s.count()) continue;
            Stop st = tl.run(Direction::Backward, c);
            REQUIRE(st.kind == StopKind::Watchpoint);
            CHECK(st.hit_eid == acc[i]);
            CHECK(st.eid == s.stop_of(acc[i], Direction::Backward));
          }
          CHECK(tl.run(Direction::Backward, c).kind == StopKind::HistoryBegin);
        }
  }
}

TEST_CASE("motion suite: the values of a partly covered range and of a range two writes straddle") {
  for (ArchId arch : kArches) {
    CAPTURE(arch_desc(arch).name);
    Suite s(arch, 1);
    Timeline tl(s.trace);
    bool partial_seen = false, straddle_seen = false;
    for (uint64_t k = 0; k < s.count(); ++k) {
      const auto& acc = s.prog.steps[k].accesses;
      if (acc.empty() || !acc[0].write || acc[0].addr < test::kMotionData + 2 || k + 2 > s.count()) continue;
      // A range that sticks out of the first write by 2 bytes on each side:
      // it covers only part of it; with the pair store, the range across
      // the seam of the two writes is covered by both.
      uint64_t lo = acc[0].addr - 2, len = acc[0].size + 4;
      if (acc.size() == 2) lo = acc[0].addr + 2, len = 4;
      Watchpoint w{lo, len, WatchKind::Write};
      CAPTURE(k);
      REQUIRE(tl.seek(k).ok());
      Stop st = tl.run(Direction::Forward, StopConditions{{}, {w}});
      // Forward from k: x86 reports k's own access. The others stop before
      // an access (k's stop would be k itself, where the run started), so
      // come back to it from k + 2 (going back, they stop after it: k + 1).
      if (arch != ArchId::X86_64) {
        REQUIRE(tl.seek(k + 2).ok());
        st = tl.run(Direction::Backward, StopConditions{{}, {w}});
      }
      REQUIRE(st.kind == StopKind::Watchpoint);
      REQUIRE(st.hit_eid == k);
      auto bytes = tl.watched_bytes(st, w);
      REQUIRE(bytes.ok());
      CHECK(bytes->written);
      std::vector<uint8_t> before = s.prog.data_before(k, lo, len), after = s.prog.data_before(k + 1, lo, len);
      CHECK(bytes->before == before);
      CHECK(bytes->after == after);
      CHECK(std::count(bytes->after_known.begin(), bytes->after_known.end(), 1) == long(len));
      partial_seen |= acc.size() == 1;
      straddle_seen |= acc.size() == 2;
    }
    CHECK(partial_seen);
    CHECK(straddle_seen);
  }
}

TEST_CASE("motion suite: single steps stop at a watched access by the one timing rule") {
  for (ArchId arch : kArches) {
    CAPTURE(arch_desc(arch).name);
    Suite s(arch, 1);
    Timeline tl(s.trace);
    Watchpoint w{test::kMotionData, 64, WatchKind::Access};
    std::vector<Watchpoint> ws{w};
    for (uint64_t e = 0; e < s.count(); ++e) {
      CAPTURE(e);
      REQUIRE(tl.seek(e).ok());
      Stop f = tl.step(Direction::Forward, std::nullopt, ws);
      // x86: a stepi over the access reports it, after it; before-access
      // arches: the stop would be where the step started, so a plain step.
      bool x86_hit = arch == ArchId::X86_64 && s.hits(e, w);
      CHECK(f.kind == (x86_hit ? StopKind::Watchpoint : e + 1 < s.count() ? StopKind::Step : StopKind::HistoryEnd));
      CHECK(f.eid == e + 1);
      REQUIRE(tl.seek(e + 1).ok());
      Stop b = tl.step(Direction::Backward, std::nullopt, ws);
      CHECK(b.kind == (x86_hit ? StopKind::Watchpoint : StopKind::Step));
      CHECK(b.eid == e);
    }
  }
}

TEST_CASE("motion suite: PowerPC step out without code bytes in the trace, with and without the program") {
  namespace fs = std::filesystem;
  const std::string elf = (fs::temp_directory_path() / ("ttd-motion-ppc-" + std::to_string(::getpid()) + ".elf")).string();
  {
    Suite probe(ArchId::Ppc32, 1, false);
    test::write_motion_elf(probe.prog, elf);
  }
  Suite with(ArchId::Ppc32, 1, false, elf);
  Suite without(ArchId::Ppc32, 1, false);
  std::remove(elf.c_str());
  // From inside f (every f0 of the run), stepOut stops right after the bl.
  Timeline a(with.trace), b(without.trace);
  uint64_t checked = 0;
  for (uint64_t e = 0; e < with.count(); ++e) {
    if (with.prog.steps[e].depth == 0 || with.prog.steps[e].call || with.prog.steps[e].ret) continue;
    CAPTURE(e);
    StepByRequest req;
    req.motion = StepMotion::Out;
    req.unit = StepUnit::Instruction;
    for (Direction dir : {Direction::Forward, Direction::Backward}) {
      req.direction = dir;
      auto want = with.oracle(e, 100, StepMotion::Out, dir);
      REQUIRE(want);
      REQUIRE(a.seek(e).ok());
      auto got = a.step_by(req, nullptr);
      REQUIRE(got.ok());
      CHECK(got->eid == *want);
      CHECK(got->unclassified == 0);
      // Without the program no step classifies: the stop must say so.
      REQUIRE(b.seek(e).ok());
      auto blind = b.step_by(req, nullptr);
      REQUIRE(blind.ok());
      CHECK(blind->unclassified > 0);
    }
    ++checked;
  }
  CHECK(checked > 20);
}
