// index_build_probe TRACE INDEX [KEYFRAME_INTERVAL]
//
// Builds TRACE's index at INDEX (always afresh) through Trace::open, as
// `ttd index --rebuild --index INDEX TRACE` does, and prints the step
// count. For A/B runs of the build alone (docs/performance.md, "Parallel
// parse, session 17"): it links the engine and the formats only, so it
// builds in a minute where the CLI takes far longer on a busy machine.
// TTD_BUILD_PARSE_THREADS chooses the parse threads as for the CLI.
#include <malloc.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "engine/trace.h"

using namespace ttd;

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s TRACE INDEX [KEYFRAME_INTERVAL]\n", argv[0]);
    return 2;
  }
  // The CLI's allocator settings (tools/ttd/main.cpp), so that the build
  // allocates as under `ttd index`.
  mallopt(M_TRIM_THRESHOLD, 512 << 20);
  mallopt(M_MMAP_THRESHOLD, 1 << 20);
  OpenOptions o;
  o.index_path = argv[2];
  o.rebuild = true;
  if (argc > 3) o.keyframe_interval = uint32_t(std::strtoul(argv[3], nullptr, 10));
  auto t = Trace::open(argv[1], o);
  if (!t) {
    std::fprintf(stderr, "%s\n", t.error().to_string().c_str());
    return 1;
  }
  std::printf("%llu steps\n", (unsigned long long)(*t)->step_count());
  return 0;
}
