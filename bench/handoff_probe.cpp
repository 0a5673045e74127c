// handoff_probe: how dear it is on this machine to hand data from one CPU
// to the other, the way a two-thread index build does (a thread fills
// blocks, another reads them, the blocks are reused). Prints JSON:
//   {"one_thread_gbs": A, "two_threads_gbs": B, "handoff_ratio": B / A}
// A: one thread fills and reads the same ring of blocks; B: one thread on
// each CPU, the first filling, the second reading. On two cores that share
// a cache B is close to 2 A (each does half the work); on a VM whose two
// vCPUs sit far apart (docs/performance.md, session 35) it fell to 0.5 A,
// and a two-thread build spent more CPU than a one-thread one. Fastest of
// three rounds. Usage: handoff_probe [MiB per round, default 2048]
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include <sched.h>

namespace {

constexpr size_t kBlockWords = 256 * 1024 / 8;  // 256 KiB blocks
constexpr size_t kBlocks = 8;                    // a 2 MiB ring: in cache, as the build's blocks are

void pin(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  sched_setaffinity(0, sizeof set, &set);  // best effort: unpinned if refused
}

struct Ring {
  std::vector<std::vector<uint64_t>> blocks{kBlocks, std::vector<uint64_t>(kBlockWords)};
  uint64_t sink = 0;
  void fill(size_t r) {
    auto& b = blocks[r % kBlocks];
    for (size_t i = 0; i < b.size(); ++i) b[i] = r * 31 + i;
  }
  void read(size_t r) {
    uint64_t s = 0;
    for (uint64_t v : blocks[r % kBlocks]) s += v;
    sink += s;
  }
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double one_thread(size_t rounds, int cpu) {
  pin(cpu);
  Ring ring;
  const auto t0 = std::chrono::steady_clock::now();
  for (size_t r = 0; r < rounds; ++r) {
    ring.fill(r);
    ring.read(r);
  }
  const double s = seconds_since(t0);
  if (ring.sink == 42) std::puts("");  // keeps the work
  return s;
}

double two_threads(size_t rounds, int fill_cpu, int read_cpu) {
  Ring ring;
  std::atomic<size_t> filled{0}, read{0};
  const auto t0 = std::chrono::steady_clock::now();
  std::thread reader([&] {
    pin(read_cpu);
    for (size_t r = 0; r < rounds; ++r) {
      while (filled.load(std::memory_order_acquire) <= r) std::this_thread::yield();
      ring.read(r);
      read.store(r + 1, std::memory_order_release);
    }
  });
  pin(fill_cpu);
  for (size_t r = 0; r < rounds; ++r) {
    while (r >= read.load(std::memory_order_acquire) + kBlocks) std::this_thread::yield();
    ring.fill(r);
    filled.store(r + 1, std::memory_order_release);
  }
  reader.join();
  const double s = seconds_since(t0);
  if (ring.sink == 42) std::puts("");
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  const long mib = argc > 1 ? std::atol(argv[1]) : 2048;
  if (mib <= 0) {
    std::fprintf(stderr, "usage: handoff_probe [MiB per round, default 2048]\n");
    return 2;
  }
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  sched_getaffinity(0, sizeof allowed, &allowed);
  int cpus[2] = {-1, -1}, found = 0;
  for (int c = 0; c < CPU_SETSIZE && found < 2; ++c)
    if (CPU_ISSET(c, &allowed)) cpus[found++] = c;
  if (found < 2) {
    std::printf("{\"error\": \"fewer than two usable CPUs\"}\n");
    return 0;
  }
  const size_t rounds = size_t(mib) * 1024 * 1024 / (kBlockWords * 8);
  double one = 1e9, two = 1e9;
  for (int i = 0; i < 3; ++i) {
    one = std::min(one, one_thread(rounds, cpus[0]));
    two = std::min(two, two_threads(rounds, cpus[0], cpus[1]));
  }
  const double gib = double(mib) / 1024;
  std::printf("{\"one_thread_gbs\": %.2f, \"two_threads_gbs\": %.2f, \"handoff_ratio\": %.2f}\n", gib / one, gib / two,
              one / two);
  return 0;
}
