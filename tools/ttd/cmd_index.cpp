// ttd index TRACE: build (or check) the index and print build statistics;
// --verify reads every table group and blob of it and checks their checksums;
// --breakdown says where the index's bytes go.
#include <cstdio>
#include <iostream>

#include "engine/index_breakdown.h"
#include "tools/ttd/commands.h"
#include "tools/ttd/trace_options.h"

namespace ttd::cli {

namespace {
int run_index(TraceOptions o, bool verify, bool breakdown) {
  o.progress = true;
  auto t = open_trace_or_report(o);
  if (!t) return 1;
  const auto& st = t->stats();
  std::printf("index:        %s\n", st.index_path.c_str());
  if (st.reused) {
    std::printf("state:        up to date (reused; pass --rebuild to build it again)\n");
  } else {
    double rate = st.build_seconds > 0 ? double(st.steps) / st.build_seconds : 0;
    std::printf("state:        built in %.3f s (%.2f M steps/s)\n", st.build_seconds, rate / 1e6);
  }
  std::printf("steps:        %llu\n", (unsigned long long)st.steps);
  std::printf("chunks:       %llu of %u steps (one keyframe each)\n", (unsigned long long)st.chunks, t->chunk_steps());
  std::printf("unique pages: %llu\n", (unsigned long long)st.unique_pages);
  std::printf("index size:   %llu bytes (%.3f x the trace file's %llu bytes)\n", (unsigned long long)st.index_bytes,
              st.source_bytes ? double(st.index_bytes) / double(st.source_bytes) : 0.0,
              (unsigned long long)st.source_bytes);
  if (breakdown) {
    auto parts = index_breakdown(*t);
    if (!parts) {
      std::cerr << "ttd index: " << parts.error().to_string() << "\n";
      return 1;
    }
    const double steps = st.steps ? double(st.steps) : 1.0;
    std::printf("%-28s %10s %14s %14s %8s %10s\n", "part", "blobs", "stored bytes", "raw bytes", "x trace",
                "bytes/step");
    for (const IndexBytes& b : *parts)
      std::printf("%-28s %10llu %14llu %14llu %8.3f %10.3f\n", b.part.c_str(), (unsigned long long)b.count,
                  (unsigned long long)b.stored, (unsigned long long)b.raw,
                  st.source_bytes ? double(b.stored) / double(st.source_bytes) : 0.0, double(b.stored) / steps);
  }
  if (verify) {
    // Opening checks the header and the directory head only; the rest is
    // checked when read, or here, all of it.
    if (auto s = t->verify_index(); !s) {
      std::cerr << "ttd index: " << s.error().to_string() << "\n";
      return 1;
    }
    std::printf("verified:     every table group and blob matches its checksum\n");
  }
  return 0;
}
}  // namespace

void add_index_command(CLI::App& app, CommandRunner& run) {
  auto o = std::make_shared<TraceOptions>();
  auto* sub = app.add_subcommand("index", "build the trace's index (progress on a terminal) and print statistics");
  add_trace_options(*sub, *o);
  auto verify = std::make_shared<bool>(false);
  sub->add_flag("--verify", *verify,
                "read the whole index and check every checksum (opening checks the header and directory head only; "
                "the rest is checked when read)");
  auto breakdown = std::make_shared<bool>(false);
  sub->add_flag("--breakdown", *breakdown,
                "also print where the index's bytes go: step streams, keyframes, pages whole and as deltas, "
                "page-map segments whole and as deltas, summaries, tables");
  sub->callback([o, verify, breakdown, &run] {
    run = [o, verify, breakdown] { return run_index(*o, *verify, *breakdown); };
  });
}

}  // namespace ttd::cli
