// A program outside the project that embeds the installed engine: opens a
// trace given on the command line, seeks a cursor to its middle and prints
// what a user of the library would ask. Built by tests/install against an
// installed prefix, with find_package(ttd) and with pkg-config.
#include <cstdio>
#include <memory>

#include "engine/cursor.h"
#include "engine/trace.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: consumer TRACE\n");
    return 2;
  }
  auto t = ttd::Trace::open(argv[1]);
  if (!t) {
    std::fprintf(stderr, "consumer: %s\n", t.error().to_string().c_str());
    return 1;
  }
  std::shared_ptr<ttd::Trace> trace = *t;
  ttd::Cursor c(trace);
  uint64_t middle = trace->step_count() / 2;
  if (auto s = c.seek(middle); !s) {
    std::fprintf(stderr, "consumer: %s\n", s.error().to_string().c_str());
    return 1;
  }
  auto step = c.current_step();
  std::printf("steps %llu arch %s eid %llu pc 0x%llx\n", static_cast<unsigned long long>(trace->step_count()),
              trace->arch().name.c_str(), static_cast<unsigned long long>(c.eid()),
              static_cast<unsigned long long>(step ? step->pc : 0));
  return 0;
}
