// Writes the call program (see call_program.h) as a UCIR file:
//   make_call_program OUT.ucir [ITERATIONS] [SPIN] [nocode]
#include <cstdio>
#include <cstdlib>
#include <string>

#include "call_program.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: make_call_program OUT.ucir [ITERATIONS] [SPIN] [nocode]\n");
    return 2;
  }
  ttd::test::CallProgramOptions o;
  if (argc > 2) o.iterations = std::strtoull(argv[2], nullptr, 0);
  if (argc > 3) o.spin = std::strtoull(argv[3], nullptr, 0);
  if (argc > 4) o.with_code = std::string(argv[4]) != "nocode";
  auto s = ttd::test::write_call_program(argv[1], o);
  if (!s) {
    std::fprintf(stderr, "make_call_program: %s\n", s.error().to_string().c_str());
    return 1;
  }
  std::remove((std::string(argv[1]) + ".ttdidx").c_str());  // a stale index from an earlier run
  return 0;
}
