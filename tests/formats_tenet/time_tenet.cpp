// time_tenet TRACE: imports a Tenet trace through the reader into a sink
// that only counts, and reports the throughput (the reader's own cost; the
// engine's indexing comes on top).
#include <chrono>
#include <cstdio>

#include "formats/tenet/tenet_reader.h"

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

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s TRACE\n", argv[0]);
    return 2;
  }
  auto start = std::chrono::steady_clock::now();
  auto reader = fmt::tenet::TenetReader::open(argv[1]);
  if (!reader) {
    std::fprintf(stderr, "%s\n", reader.error().to_string().c_str());
    return 1;
  }
  CountingSink sink;
  uint64_t size = 0;
  Status s = reader.value()->read(sink, [&](uint64_t, uint64_t total) {
    size = total;
    return true;
  });
  if (!s) {
    std::fprintf(stderr, "%s\n", s.error().to_string().c_str());
    return 1;
  }
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("%s: %.1f MB, %llu steps, %llu register writes, %llu reads, %llu writes in %.2f s: %.0f MB/s, %.1f M "
              "steps/s (checksum %llx)\n",
              argv[1], double(size) / 1e6, (unsigned long long)sink.steps, (unsigned long long)sink.regs,
              (unsigned long long)sink.reads, (unsigned long long)sink.writes, secs, double(size) / 1e6 / secs,
              double(sink.steps) / 1e6 / secs, (unsigned long long)sink.checksum);
  return 0;
}
