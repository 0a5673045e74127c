// Writes the crafted logs of tests/data/xray/crafted/: the log versions and
// record kinds no available runtime writes any more (FDR v1-v4, basic v1-v2)
// or writes only by accident (CPU changes, TSC wraps, buffers interleaved
// between threads, several arguments, a runtime-bug cut in the middle of a
// file). Their reference outputs come from llvm-xray-14 (see
// tests/data/xray/PROVENANCE.md); the files are committed, so this only
// runs when the fixtures are remade:
//   make_fixtures OUTDIR
#include <cstdio>
#include <string>

#include "fdr_writer.h"

using namespace xray_test;

namespace {

// Two threads whose buffers interleave; arguments, a TSC wrap, a CPU
// change, a tail exit; events where the version has them.
FdrWriter fdr_two_threads(uint16_t version, uint64_t buffer_size) {
  FdrWriter w(version, buffer_size, 2400000000ull);
  w.set_v1_padding(0);  // llvm-xray parses v1 padding as records: zeros keep it happy
  w.begin_buffer(101, 77, 2, 5000000, 1700000000, 250000);
  w.function(Action::Enter, 1, 0);
  w.function(Action::EnterArgs, 2, 12);
  w.argument(7);
  w.argument(0xffffffffffffffffull);
  w.argument(42);
  w.function(Action::Enter, 3, 5);
  w.function(Action::Exit, 3, 9);
  w.end_buffer();
  w.begin_buffer(102, 77, 0, 6000000, 1700000000, 250010);
  w.function(Action::Enter, 4, 3);
  if (version >= 5) w.custom_event(4, "second-thread");
  // v4 gave custom events their own CPU field; before that the bytes were
  // not written by compiler-rt (this reader then uses the buffer's CPU,
  // llvm-xray reads the bytes): keep them equal to the buffer's CPU here.
  else if (version >= 2)
    w.custom_event(6000010, "second-thread", version >= 4 ? 1 : 0);
  w.function(Action::Exit, 4, 20);
  w.end_buffer();
  w.begin_buffer(101, 77, 2, 5000100, 1700000000, 250020);
  w.new_cpu(3, 5000200);
  w.function(Action::Exit, 2, 1);
  w.tsc_wrap(9000000000ull);
  w.function(Action::TailExit, 1, 7);
  w.function(Action::Enter, 5, 2);
  if (version >= 5) w.typed_event(3, 513, std::string("\x01\x02typed\xff", 8));
  w.function(Action::Exit, 5, 4000000000u);
  w.end_buffer();
  return w;
}

bool save(const std::string& dir, const std::string& name, const std::vector<uint8_t>& bytes) {
  std::string path = dir + "/" + name;
  if (!write_file(path, bytes)) {
    std::fprintf(stderr, "cannot write %s\n", path.c_str());
    return false;
  }
  std::printf("%s (%zu bytes)\n", path.c_str(), bytes.size());
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
    return 2;
  }
  std::string dir = argv[1];
  bool ok = true;
  ok &= save(dir, "fdr-v1-padded-buffers.xray", fdr_two_threads(1, 256).bytes());
  for (uint16_t v = 2; v <= 5; ++v)
    ok &= save(dir, "fdr-v" + std::to_string(v) + "-two-threads.xray", fdr_two_threads(v, 0).bytes());

  // A compiler-rt style file where the typed-event bug cuts a record in a
  // buffer that other buffers follow.
  {
    FdrWriter w(5, 16384, 1000000000ull);
    w.begin_buffer(201, 200, 0, 1000);
    w.function(Action::Enter, 1, 0);
    w.typed_event(10, 9, "payload");
    w.function(Action::Enter, 2, 10);
    w.function(Action::Exit, 2, 10);
    w.custom_event(5, "tail-custom");  // cut: its last bytes fall off the buffer
    w.function(Action::Exit, 1, 10);
    w.end_buffer(/*runtime_bug=*/true);
    w.begin_buffer(202, 200, 1, 2000);
    w.function(Action::Enter, 3, 0);
    w.function(Action::Exit, 3, 30);
    w.end_buffer();
    w.begin_buffer(201, 200, 0, 3000);
    w.function(Action::Enter, 1, 0);
    w.function(Action::Exit, 1, 4);
    w.end_buffer();
    ok &= save(dir, "fdr-v5-runtime-bug-cut-mid-file.xray", w.bytes());
  }

  // Basic mode, all three versions (v1/v2 have no process ids).
  for (uint16_t v = 1; v <= 3; ++v) {
    auto b = basic_header(v);
    uint32_t pid = v >= 3 ? 900 : 0;
    basic_function(b, Action::Enter, 1, 100, 11, pid, 1);
    basic_function(b, Action::EnterArgs, 2, 110, 11, pid, 1);
    if (v >= 2) {
      basic_argument(b, 2, 11, pid, 5);
      basic_argument(b, 2, 11, pid, 6);
    }
    basic_function(b, Action::Enter, 3, 105, 12, pid, 0);
    basic_function(b, Action::Exit, 2, 130, 11, pid, 1);
    basic_function(b, Action::TailExit, 1, 140, 11, pid, 3);
    basic_function(b, Action::Exit, 3, 150, 12, pid, 0);
    ok &= save(dir, "basic-v" + std::to_string(v) + "-two-threads.xray", b);
  }
  return ok ? 0 : 1;
}
