// make_tt6_fixtures DIR: runs the PowerPC test guest under Unicorn and
// writes its TT6, TT6E and FULL traces as DIR/guest.tt6, guest.tt6e and
// guest.full (for the gdb integration test, the fuzz seeds and by hand).
#include <cstdio>
#include <string>

#include "formats/tt6/testing/tt6_writer.h"
#include "ppc_guest_run.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  ttd::test::GuestRun run = ttd::test::run_ppc_guest();
  if (!run.error.empty()) {
    std::fprintf(stderr, "guest run failed: %s\n", run.error.c_str());
    return 1;
  }
  for (auto [name, bytes] : {std::pair{"guest.tt6", &run.tt6}, {"guest.tt6e", &run.tt6e}, {"guest.full", &run.full}}) {
    auto s = ttd::fmt::tt6::save_bytes(dir + "/" + name, *bytes);
    if (!s) {
      std::fprintf(stderr, "%s\n", s.error().to_string().c_str());
      return 1;
    }
  }
  std::printf("%zu instructions: %s/guest.tt6 (%zu bytes), guest.tt6e (%zu), guest.full (%zu)\n", run.steps.size(),
              dir.c_str(), run.tt6.size(), run.tt6e.size(), run.full.size());
  return 0;
}
