// time_import TRACE [--format NAME] [--bytes N]: imports one trace through
// the format registry (the reader `ttd index` uses) into a sink that only
// counts, and prints one line of figures for scripts/bench-formats.sh.
//
// Every format goes through the same sink and the same clocks, so the
// figures compare. The rate is over N bytes (default: the size of TRACE),
// because for a trace directory the caller decides which file the target
// is about (the Pin-tool trace's execution table). Wall time and process
// CPU time (user + sys, all threads) are both given: on a loaded shared
// machine the wall clock also counts waiting for a core.
#include <sys/resource.h>
#include <sys/stat.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "formats/common/trace_reader.h"

using namespace ttd;

namespace {

// Counts what the reader delivers; the checksum keeps the calls honest.
class CountingSink : public fmt::TraceSink {
 public:
  uint64_t steps = 0, attrs = 0, regs = 0, reads = 0, writes = 0, unknown = 0, checksum = 0;
  void begin(const fmt::TraceInfo&) override {}
  void step(const fmt::StepInfo& s) override {
    ++steps;
    checksum += s.pc;
  }
  void attr(std::string_view k, const fmt::AttrValue&) override {
    ++attrs;
    checksum += k.size();
  }
  void reg(uint64_t, uint16_t r, std::span<const uint8_t> v) override {
    ++regs;
    checksum += r + (v.empty() ? 0 : v[0]);
  }
  void mem_write(uint64_t, uint64_t addr, std::span<const uint8_t> b) override {
    ++writes;
    checksum += addr + b.size();
  }
  void mem_read(uint64_t, uint64_t addr, uint32_t size, std::span<const uint8_t>) override {
    ++reads;
    checksum += addr + size;
  }
  void mem_unknown(uint64_t, uint64_t addr, uint64_t size) override {
    ++unknown;
    checksum += addr + size;
  }
};

double cpu_seconds() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

uint64_t file_size(const std::string& p) {
  struct stat st{};
  return ::stat(p.c_str(), &st) == 0 ? uint64_t(st.st_size) : 0;
}

int usage(const char* argv0) {
  std::fprintf(stderr, "usage: %s TRACE [--format NAME] [--bytes N]\n", argv0);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usage(argv[0]);
  const std::string path = argv[1];
  std::string format;
  uint64_t bytes = 0;
  for (int i = 2; i < argc; ++i) {
    if (std::strcmp(argv[i], "--format") == 0 && i + 1 < argc) format = argv[++i];
    else if (std::strcmp(argv[i], "--bytes") == 0 && i + 1 < argc) bytes = std::strtoull(argv[++i], nullptr, 10);
    else return usage(argv[0]);
  }
  if (bytes == 0) bytes = file_size(path);
  if (bytes == 0) {
    std::fprintf(stderr, "%s: no size to compute a rate over (pass --bytes for a directory)\n", path.c_str());
    return 2;
  }

  const auto wall0 = std::chrono::steady_clock::now();
  const double cpu0 = cpu_seconds();
  auto reader = fmt::open_trace(path, {}, format);
  if (!reader) {
    std::fprintf(stderr, "%s\n", reader.error().to_string().c_str());
    return 1;
  }
  CountingSink sink;
  Status s = reader.value()->read(sink, {});
  if (!s) {
    std::fprintf(stderr, "%s\n", s.error().to_string().c_str());
    return 1;
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  const double cpu = cpu_seconds() - cpu0;
  const double mib = double(bytes) / double(1 << 20);
  std::printf("%s: %.1f MiB, %llu steps, %llu attrs, %llu regs, %llu reads, %llu writes, %llu unknown; "
              "wall %.2f s = %.0f MiB/s, cpu %.2f s = %.0f MiB/s, %.1f M steps/s cpu (checksum %llx)\n",
              path.c_str(), mib, (unsigned long long)sink.steps, (unsigned long long)sink.attrs,
              (unsigned long long)sink.regs, (unsigned long long)sink.reads, (unsigned long long)sink.writes,
              (unsigned long long)sink.unknown, wall, mib / wall, cpu, mib / cpu, double(sink.steps) / cpu / 1e6,
              (unsigned long long)sink.checksum);
  return 0;
}
