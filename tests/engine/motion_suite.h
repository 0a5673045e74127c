// The motion suite's fixture: a generated program (motion_program.h) opened
// through the real engine, with brute-force oracles for where a step or a
// watched access stops, built from what the generator tracked.
#pragma once
#include <doctest/doctest.h>

#include <optional>
#include <string>

#include "engine/motion/timeline.h"
#include "motion_program.h"
#include "temp_synthetic_trace.h"

namespace ttd::test {

inline const ArchId kArches[] = {ArchId::X86_64, ArchId::AArch64, ArchId::Ppc32};

struct Suite {
  MotionProgram prog;
  TempSynthTrace tmp;
  std::shared_ptr<const Trace> trace;
  Suite(ArchId arch, uint32_t threads, bool code_in_trace = true, const std::string& program = "")
      : prog(make_motion_program(arch, threads, 12, 3 + threads, code_in_trace)), tmp(std::move(*prog.synth)) {
    OpenOptions o = tmp.options(64);
    o.program = program;
    auto t = Trace::open(tmp.path, o);
    REQUIRE(t.ok());
    trace = *t;
  }
  uint64_t count() const { return prog.steps.size(); }

  // Thread t's first step at or after e, and the depth of t's frame at e.
  std::optional<uint64_t> next_of(uint64_t e, uint64_t t) const {
    for (uint64_t k = e; k < count(); ++k)
      if (prog.steps[k].tid == t) return k;
    return std::nullopt;
  }
  int depth_at(uint64_t e, uint64_t t) const {
    if (auto k = next_of(e, t)) return prog.steps[*k].depth;
    for (uint64_t k = e; k-- > 0;)
      if (prog.steps[k].tid == t) return prog.steps[k].depth_after;
    return 0;
  }

  // Where step in / over / out of thread t from e stops: the next (or
  // previous) step of t, the first whose frame is this one or an outer one,
  // or an outer one only. nullopt: a history boundary.
  std::optional<uint64_t> oracle(uint64_t e, uint64_t t, StepMotion m, Direction dir) const {
    int d = depth_at(e, t);
    auto fits = [&](const MotionStep& s) {
      return m == StepMotion::In || (m == StepMotion::Over ? s.depth <= d : s.depth < d);
    };
    if (dir == Direction::Forward) {
      auto first = next_of(e, t);
      if (!first) return std::nullopt;
      for (uint64_t k = *first + 1; k < count(); ++k)
        if (prog.steps[k].tid == t && fits(prog.steps[k])) return k;
      return std::nullopt;
    }
    for (uint64_t k = e; k-- > 0;)
      if (prog.steps[k].tid == t && fits(prog.steps[k])) return k;
    return std::nullopt;
  }

  bool hits(uint64_t k, const Watchpoint& w) const {
    for (const auto& a : prog.steps[k].accesses) {
      bool kind = w.kind == WatchKind::Access || (w.kind == WatchKind::Write) == a.write;
      if (kind && a.addr < w.addr + w.len && w.addr < a.addr + a.size) return true;
    }
    return false;
  }
  // The stop position for an access by step k (x86 after it going forward,
  // before it going backward; the others the other way round).
  uint64_t stop_of(uint64_t k, Direction dir) const {
    bool after = prog.arch == ArchId::X86_64;
    return dir == Direction::Forward ? (after ? k + 1 : k) : (after ? k : k + 1);
  }
  // A move from `from` to `to` stops early at a watched access on the way
  // (steps between them), unless its stop position is where it started.
  std::optional<uint64_t> watch_on_the_way(uint64_t from, uint64_t to, Direction dir, const Watchpoint& w) const {
    if (dir == Direction::Forward) {
      for (uint64_t k = from; k < to; ++k)
        if (hits(k, w) && stop_of(k, dir) != from) return k;
    } else {
      for (uint64_t k = from; k-- > to;)
        if (hits(k, w) && stop_of(k, dir) != from) return k;
    }
    return std::nullopt;
  }
};

}  // namespace ttd::test
