// Writes a synthetic FDR version 5 log for benchmarks, laid out like the
// compiler-rt runtime's: fixed-size thread buffers flushed whole, threads
// interleaved, nested calls with TSC deltas, logged arguments, tail exits,
// CPU changes, TSC wraps and the odd custom/typed event.
//   gen_xray OUT.xray SIZE_MB [THREADS=4] [BUFFER_BYTES=16384]
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "fdr_writer.h"

using namespace xray_test;

namespace {

struct Rng {
  uint64_t s;
  uint32_t next() {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return uint32_t(s >> 33);
  }
  bool one_in(uint32_t n) { return next() % n == 0; }
};

struct ThreadSim {
  int32_t tid = 0;
  uint16_t cpu = 0;
  uint64_t tsc = 0;
  std::vector<uint32_t> stack;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s OUT.xray SIZE_MB [THREADS=4] [BUFFER_BYTES=16384]\n", argv[0]);
    return 2;
  }
  std::string out = argv[1];
  uint64_t target = uint64_t(std::strtoull(argv[2], nullptr, 10)) << 20;
  int threads = argc > 3 ? std::atoi(argv[3]) : 4;
  uint64_t buffer = argc > 4 ? std::strtoull(argv[4], nullptr, 10) : 16384;
  if (threads < 1 || buffer < 256) {
    std::fprintf(stderr, "need at least 1 thread and 256-byte buffers\n");
    return 2;
  }
  FILE* f = std::fopen(out.c_str(), "wb");
  if (!f) {
    std::perror(out.c_str());
    return 1;
  }
  Rng rng{0x5eed};
  std::vector<ThreadSim> sims(static_cast<size_t>(threads));
  for (int i = 0; i < threads; ++i) {
    sims[size_t(i)].tid = 1000 + i;
    sims[size_t(i)].cpu = uint16_t(i % 8);
    sims[size_t(i)].tsc = 1000000000ull * uint64_t(i + 1);
  }
  FdrWriter w(5, buffer, 2000000000ull);
  uint64_t written = 0, records = 0;
  const uint64_t kPreamble = 16 + 64;  // BufferExtents + NewBuffer, WallTime, Pid, NewCPU
  for (uint64_t round = 0; written < target; ++round) {
    ThreadSim& t = sims[size_t(round % uint64_t(threads))];
    w.begin_buffer(t.tid, 4242, t.cpu, t.tsc, 1700000000 + round / 1000, uint32_t(round % 1000000));
    uint64_t used = kPreamble;
    // Leave room for the largest record (an event of 16 + 32 bytes).
    while (used + 64 <= buffer) {
      uint32_t r = rng.next() % 1000;
      uint32_t delta = 20 + rng.next() % 400;
      if (r < 2) {  // a long pause: the delta does not fit, the runtime writes a TSC wrap
        t.tsc += 5000000000ull;
        w.tsc_wrap(t.tsc);
        used += 16;
        continue;
      }
      if (r < 4) {  // migrated to another CPU
        t.cpu = uint16_t((t.cpu + 1) % 8);
        t.tsc += delta;
        w.new_cpu(t.cpu, t.tsc);
        used += 16;
        continue;
      }
      t.tsc += delta;
      if (r < 6) {
        w.custom_event(int32_t(delta), "bench-custom-event-payload");
        used += 16 + 26;
      } else if (r < 7) {
        w.typed_event(int32_t(delta), 7, "typed-payload");
        used += 16 + 13;
      } else if (t.stack.size() < 3 || (t.stack.size() < 40 && r < 520)) {
        uint32_t fn = 1 + rng.next() % 500;
        t.stack.push_back(fn);
        if (r % 10 == 0) {
          w.function(Action::EnterArgs, fn, delta);
          w.argument(rng.next());
          used += 24;
        } else {
          w.function(Action::Enter, fn, delta);
          used += 8;
        }
      } else {
        uint32_t fn = t.stack.back();
        t.stack.pop_back();
        w.function(r % 25 == 0 ? Action::TailExit : Action::Exit, fn, delta);
        used += 8;
      }
      ++records;
    }
    w.end_buffer();
    auto bytes = w.take();
    if (std::fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size()) {
      std::perror(out.c_str());
      return 1;
    }
    written += bytes.size();
  }
  if (std::fclose(f) != 0) {
    std::perror(out.c_str());
    return 1;
  }
  std::printf("%s: %llu bytes, %llu event records, %d threads, %llu-byte buffers\n", out.c_str(),
              static_cast<unsigned long long>(written), static_cast<unsigned long long>(records), threads,
              static_cast<unsigned long long>(buffer));
  return 0;
}
