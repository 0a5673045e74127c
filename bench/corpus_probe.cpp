// corpus_probe TRACE [--index PATH] [--seeks N] [--reverse-runs N] [--max-steps N]
//
// The in-process figures of one trace of the real-workload corpus
// (scripts/bench-corpus.sh, issue 17), printed as one JSON object on stdout:
//   open_ms              Trace::open of an existing index (the script builds it first)
//   seek_p50_us / _p99_us / _max_us, seek_cpu_us, seeks
//                        Cursor::seek to N random EIDs (fixed seed; fewer,
//                        at least 100, when they take over 90 s), wall clock
//                        per seek; CPU µs per seek averaged over the loop
//   seek_peak_rss_mb     peak RSS of this process after the seeks (it has
//                        done nothing but open and seek by then)
//   rc_ms_median / _min / _max, rc_cpu_ms, rc_steps_back
//                        Timeline::run backward to a breakpoint as far back as
//                        the trace allows, up to 50 M steps (issue 2's
//                        reverse-continue): the pc of an early step that does
//                        not run again within the distance.
// On an error: {"error": "..."} and exit status 1.
//
// Only the front ends' API (engine/trace.h, Cursor, Timeline): the index's
// storage may change under it without this program changing.
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "bench/process_usage.h"
#include "engine/cursor.h"
#include "engine/motion/timeline.h"
#include "engine/trace.h"

using namespace ttd;
using Clock = std::chrono::steady_clock;

namespace {

constexpr uint64_t kReverseDistance = 50'000'000;
// Candidate breakpoints: the pcs of early steps (startup code runs once).
constexpr uint64_t kCandidateSpan = 20'000;
constexpr uint64_t kCandidateStride = 7;
constexpr double kSearchBudgetS = 20.0;
// Seeks stop after this long even if fewer than --seeks were made (a
// page-heavy trace seeks in tenths of a second; the corpus must stay
// well under 30 minutes). The JSON says how many were made.
constexpr double kSeekBudgetS = 90.0;

struct Args {
  std::string trace, index;
  uint64_t seeks = 2000, reverse_runs = 5, max_steps = 0;
};

std::string json_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (uint8_t(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", unsigned(uint8_t(c)));
      out += buf;
    } else {
      out += c;
    }
  }
  return out;
}

[[noreturn]] void fail(const std::string& what) {
  std::printf("{\"error\": \"%s\"}\n", json_escape(what).c_str());
  std::exit(1);
}

bool parse_count(const char* s, uint64_t& out) {
  char* end = nullptr;
  errno = 0;
  unsigned long long v = std::strtoull(s, &end, 10);
  if (errno || end == s || *end || s[0] == '-') return false;
  out = v;
  return true;
}

Args parse_args(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](uint64_t* number, std::string* text) {
      if (i + 1 >= argc) fail(arg + " needs a value");
      const char* v = argv[++i];
      if (text) *text = v;
      if (number && !parse_count(v, *number)) fail(arg + ": not a count: '" + v + "'");
    };
    if (arg == "--index") value(nullptr, &a.index);
    else if (arg == "--seeks") value(&a.seeks, nullptr);
    else if (arg == "--reverse-runs") value(&a.reverse_runs, nullptr);
    else if (arg == "--max-steps") value(&a.max_steps, nullptr);
    else if (!arg.empty() && arg[0] == '-') fail("unknown option " + arg);
    else if (a.trace.empty()) a.trace = arg;
    else fail("more than one trace given: " + arg);
  }
  if (a.trace.empty()) fail("usage: corpus_probe TRACE [--index PATH] [--seeks N] [--reverse-runs N] [--max-steps N]");
  if (a.seeks == 0) fail("--seeks must be at least 1");
  return a;
}

volatile uint64_t g_sink;  // keeps the state reads of the seek loop

double since_ms(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

struct SeekFigures {
  bench::Percentiles us;
  double cpu_us = 0, peak_rss_mb = 0;
  uint64_t made = 0;
};

SeekFigures random_seeks(const std::shared_ptr<const Trace>& t, uint64_t n) {
  Cursor c(t);
  std::mt19937_64 rng(1);
  std::vector<double> us;
  us.reserve(n);
  uint64_t pcs = 0;  // read the state each seek gives, as a client would
  double cpu0 = bench::process_cpu_s();
  auto start = Clock::now();
  for (uint64_t i = 0; i < n && (i < 100 || since_ms(start) < kSeekBudgetS * 1000); ++i) {
    uint64_t e = rng() % (t->step_count() + 1);
    auto t0 = Clock::now();
    if (auto s = c.seek(e); !s) fail("seek to " + std::to_string(e) + ": " + s.error().to_string());
    if (auto step = c.current_step()) pcs += step->pc;
    us.push_back(since_ms(t0) * 1000.0);
  }
  SeekFigures f;
  f.made = us.size();
  f.cpu_us = (bench::process_cpu_s() - cpu0) / double(us.size()) * 1e6;
  f.peak_rss_mb = bench::peak_rss_mb();
  f.us = bench::percentiles(us);
  g_sink = pcs;
  return f;
}

struct ReverseTarget {
  uint64_t pc = 0, from = 0, hit = 0;
  uint64_t back() const { return from - hit; }
};

// The early step whose pc, set as a breakpoint, makes a reverse-continue
// travel farthest (up to kReverseDistance): from `from`, backward, the run
// stops at `hit`. A pc that runs once (startup code) gives the whole
// distance at the first try; a trace whose every pc recurs (a synthetic
// loop) gives its longest gap among the candidates tried.
std::optional<ReverseTarget> find_reverse_target(const std::shared_ptr<const Trace>& t) {
  const uint64_t steps = t->step_count();
  std::optional<ReverseTarget> best;
  auto t0 = Clock::now();
  Timeline tl(t);
  for (uint64_t e = 0; e < kCandidateSpan && e < steps; e += kCandidateStride) {
    if (since_ms(t0) > kSearchBudgetS * 1000) break;
    if (!tl.seek(e) || !tl.current_step()) continue;
    uint64_t pc = tl.current_step()->pc;
    uint64_t from = std::min(steps, e + kReverseDistance);
    if (from <= e || !tl.seek(from)) continue;
    StopConditions sc;
    sc.breakpoints = {pc};
    Stop s = tl.run(Direction::Backward, sc);
    if (s.error) fail("reverse-continue from " + std::to_string(from) + ": " + s.error->to_string());
    if (s.kind != StopKind::Breakpoint) continue;
    ReverseTarget r{pc, from, s.eid};
    if (!best || r.back() > best->back()) best = r;
    if (s.eid == e) break;  // nothing between: the farthest this start can give
  }
  return best;
}

struct ReverseFigures {
  double median_ms = 0, min_ms = 0, max_ms = 0, cpu_ms = 0;
  uint64_t back = 0;
};

ReverseFigures time_reverse(const std::shared_ptr<const Trace>& t, const ReverseTarget& target, uint64_t runs) {
  StopConditions sc;
  sc.breakpoints = {target.pc};
  Timeline tl(t);
  std::vector<double> ms;
  double cpu = 0;
  for (uint64_t i = 0; i < runs; ++i) {
    if (auto s = tl.seek(target.from); !s) fail("seek to " + std::to_string(target.from) + ": " + s.error().to_string());
    double cpu0 = bench::process_cpu_s();
    auto t0 = Clock::now();
    Stop s = tl.run(Direction::Backward, sc);
    ms.push_back(since_ms(t0));
    cpu += bench::process_cpu_s() - cpu0;
    if (s.kind != StopKind::Breakpoint || s.eid != target.hit)
      fail("reverse-continue from " + std::to_string(target.from) + " stopped at " + std::to_string(s.eid) +
           ", not at the breakpoint hit " + std::to_string(target.hit));
  }
  ReverseFigures f;
  std::sort(ms.begin(), ms.end());
  f.median_ms = ms[ms.size() / 2];
  f.min_ms = ms.front();
  f.max_ms = ms.back();
  f.cpu_ms = cpu / double(runs) * 1000.0;
  f.back = target.back();
  return f;
}

}  // namespace

int main(int argc, char** argv) {
  Args a = parse_args(argc, argv);
  OpenOptions o;
  o.index_path = a.index;
  o.reader.max_steps = a.max_steps;
  auto t0 = Clock::now();
  auto opened = Trace::open(a.trace, o);
  if (!opened) fail(opened.error().to_string());
  double open_ms = since_ms(t0);
  std::shared_ptr<const Trace> t = *opened;
  if (!t->stats().reused) std::fprintf(stderr, "corpus_probe: %s: the index was built by this open\n", a.trace.c_str());

  SeekFigures seek = random_seeks(t, a.seeks);
  std::printf("{\"trace\": \"%s\", \"steps\": %llu, \"open_ms\": %.3f, \"index_reused\": %s", json_escape(a.trace).c_str(),
              (unsigned long long)t->step_count(), open_ms, t->stats().reused ? "true" : "false");
  std::printf(", \"seeks\": %llu, \"seek_p50_us\": %.1f, \"seek_p99_us\": %.1f, \"seek_max_us\": %.1f",
              (unsigned long long)seek.made, seek.us.p50, seek.us.p99, seek.us.max);
  std::printf(", \"seek_cpu_us\": %.1f, \"seek_peak_rss_mb\": %.1f", seek.cpu_us, seek.peak_rss_mb);

  if (a.reverse_runs > 0) {
    auto target = find_reverse_target(t);
    if (!target) fail("no early pc that a reverse-continue can stop at");
    ReverseFigures rc = time_reverse(t, *target, a.reverse_runs);
    std::printf(", \"rc_steps_back\": %llu, \"rc_ms_median\": %.3f, \"rc_ms_min\": %.3f, \"rc_ms_max\": %.3f",
                (unsigned long long)rc.back, rc.median_ms, rc.min_ms, rc.max_ms);
    std::printf(", \"rc_cpu_ms\": %.3f, \"rc_runs\": %llu", rc.cpu_ms, (unsigned long long)a.reverse_runs);
  }
  std::printf(", \"peak_rss_mb\": %.1f}\n", bench::peak_rss_mb());
  return 0;
}
