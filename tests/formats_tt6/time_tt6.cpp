// time_tt6 TRACE [tt6|tt6e|tt6-full]: imports a TT6, TT6E or FULL trace
// through its reader into a sink that only counts, and reports the
// throughput (the reader's own cost; the engine's indexing comes on top).
// The variant follows the extension unless given.
#include <chrono>
#include <cstdio>
#include <string>

#include "formats/tt6/full_reader.h"
#include "formats/tt6/tt6_reader.h"
#include "formats/tt6/tt6_sniff.h"

using namespace ttd;
using namespace ttd::fmt::tt6;

namespace {

class CountingSink : public fmt::TraceSink {
 public:
  uint64_t steps = 0, regs = 0, reads = 0, writes = 0, unknown = 0, attrs = 0, checksum = 0;
  void begin(const fmt::TraceInfo&) override {}
  void step(const fmt::StepInfo& s) override {
    ++steps;
    checksum += s.pc;
  }
  void attr(std::string_view, const fmt::AttrValue&) override { ++attrs; }
  void reg(uint64_t, uint16_t r, std::span<const uint8_t> v) override {
    ++regs;
    checksum += r + v[0];
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

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s TRACE [tt6|tt6e|tt6-full]\n", argv[0]);
    return 2;
  }
  const std::string path = argv[1];
  std::string variant = argc > 2 ? argv[2] : has_extension(path, ".tt6e") ? "tt6e"
                                            : has_extension(path, ".full")  ? "tt6-full"
                                                                            : "tt6";
  auto start = std::chrono::steady_clock::now();
  std::unique_ptr<fmt::TraceReader> reader;
  if (variant == "tt6-full") {
    auto r = FullReader::open(path);
    if (!r) return std::fprintf(stderr, "%s\n", r.error().to_string().c_str()), 1;
    reader = std::move(r.value());
  } else {
    auto r = Tt6Reader::open(path, variant == "tt6e" ? Variant::Tt6e : Variant::Tt6);
    if (!r) return std::fprintf(stderr, "%s\n", r.error().to_string().c_str()), 1;
    reader = std::move(r.value());
  }
  CountingSink sink;
  uint64_t size = 0;
  Status s = reader->read(sink, [&](uint64_t, uint64_t total) {
    size = total;
    return true;
  });
  if (!s) return std::fprintf(stderr, "%s\n", s.error().to_string().c_str()), 1;
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("%s (%s): %.1f MB, %llu steps, %llu reads, %llu unknown-value writes, %llu writes, %llu register "
              "writes, %llu attrs in %.2f s: %.0f MB/s, %.1f M steps/s (checksum %llx)\n",
              path.c_str(), variant.c_str(), double(size) / 1e6, (unsigned long long)sink.steps,
              (unsigned long long)sink.reads, (unsigned long long)sink.unknown, (unsigned long long)sink.writes,
              (unsigned long long)sink.regs, (unsigned long long)sink.attrs, secs, double(size) / 1e6 / secs,
              double(sink.steps) / 1e6 / secs, (unsigned long long)sink.checksum);
  return 0;
}
