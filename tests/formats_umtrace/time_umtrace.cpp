// time_umtrace DIR: imports a UMTracer trace through the reader into a sink
// that only counts, and reports the throughput over the execution table
// (the reader's own cost; the engine's indexing comes on top). Run it twice
// for a warm page cache.
#include <sys/resource.h>
#include <sys/stat.h>

#include <chrono>
#include <cstdio>
#include <string>

#include "formats/umtrace/umtrace_reader.h"

using namespace ttd;

namespace {

class CountingSink : public fmt::TraceSink {
 public:
  uint64_t steps = 0, regs = 0, reads = 0, writes = 0, bytes = 0, checksum = 0;
  void begin(const fmt::TraceInfo&) override {}
  void step(const fmt::StepInfo& s) override {
    ++steps;
    checksum += s.pc;
  }
  void reg(uint64_t, uint16_t r, std::span<const uint8_t> v) override {
    ++regs;
    checksum += r + v[0];
  }
  void mem_write(uint64_t, uint64_t addr, std::span<const uint8_t> b) override {
    ++writes;
    bytes += b.size();
    checksum += addr;
  }
  void mem_read(uint64_t, uint64_t addr, uint32_t size, std::span<const uint8_t>) override {
    ++reads;
    bytes += size;
    checksum += addr;
  }
};

// CPU seconds this process used (user + system): on a shared machine the
// wall clock also counts time spent waiting for a core.
double cpu_seconds() {
  rusage u {};
  ::getrusage(RUSAGE_SELF, &u);
  return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

uint64_t file_size(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 ? uint64_t(st.st_size) : 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s TRACE_DIR\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  const uint64_t vtable = file_size(dir + "/exec.vtable");
  const uint64_t table = vtable + file_size(dir + "/exec.offsets") + file_size(dir + "/exec.prev_next.column");
  auto start = std::chrono::steady_clock::now();
  const double cpu_start = cpu_seconds();
  auto reader = fmt::umtrace::UmtraceReader::open(dir);
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
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double cpu = cpu_seconds() - cpu_start;
  std::printf("%s: exec.vtable %.1f MB (exec table with offsets and prev/next %.1f MB), %llu records, "
              "%llu register writes, %llu reads, %llu writes in %.2f s: %.0f MB/s of exec.vtable, %.0f MB/s of "
              "the exec table, %.1f M records/s (checksum %llx)\n"
              "  CPU time %.2f s: %.0f MB/s of exec.vtable, %.0f MB/s of the exec table per CPU second\n",
              dir.c_str(), double(vtable) / 1e6, double(table) / 1e6, (unsigned long long)sink.steps,
              (unsigned long long)sink.regs, (unsigned long long)sink.reads, (unsigned long long)sink.writes, secs,
              double(vtable) / 1e6 / secs, double(table) / 1e6 / secs, double(sink.steps) / 1e6 / secs,
              (unsigned long long)sink.checksum, cpu, double(vtable) / 1e6 / cpu, double(table) / 1e6 / cpu);
  return 0;
}
