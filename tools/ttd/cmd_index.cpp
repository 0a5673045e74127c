// ttd index TRACE: build (or check) the index and print build statistics.
#include <cstdio>
#include <iostream>

#include "tools/ttd/commands.h"
#include "tools/ttd/trace_options.h"

namespace ttd::cli {

namespace {
int run_index(TraceOptions o) {
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
  return 0;
}
}  // namespace

void add_index_command(CLI::App& app, CommandRunner& run) {
  auto o = std::make_shared<TraceOptions>();
  auto* sub = app.add_subcommand("index", "build the trace's index (progress on a terminal) and print statistics");
  add_trace_options(*sub, *o);
  sub->callback([o, &run] { run = [o] { return run_index(*o); }; });
}

}  // namespace ttd::cli
