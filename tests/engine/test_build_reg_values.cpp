// TraceSink::reg_value (a register's value as an integer, which UCIR
// readers send instead of its bytes) builds the same index as reg() with
// the value's little-endian bytes: the step stream, the register file and,
// on two CPUs, the effect log the replay thread reads. Bits above a
// register's size are dropped, as the bytes would be.
#include <doctest/doctest.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "engine/index_builder.h"
#include "engine/index_layout.h"
#include "formats/common/trace_reader.h"
#include "state/host_cpus.h"
#include "tests/engine/index_data_region.h"
#include "tests/support/one_cpu_affinity.h"

// A namespace of its own: CI's unity build compiles it with its suite's other files.
namespace test_build_reg_values {

using namespace ttd;

namespace {

// Every register of at most 8 bytes gets values on every few steps, from
// two threads and one known only by its registers; the pc too. Values
// carry bits above 4-byte registers' size.
class RegReader : public fmt::TraceReader {
 public:
  RegReader(ArchId arch, bool as_values) : arch_(arch), as_values_(as_values) {}
  Status read(fmt::TraceSink& sink, const fmt::Progress&) override {
    fmt::TraceInfo info;
    info.format = "regs";
    info.arch = arch_;
    sink.begin(info);
    const ArchDesc& a = arch_desc(arch_);
    sink.thread_begin(1, 1);
    sink.thread_begin(2, 1);
    uint64_t x = 88172645463325252ull;
    for (uint64_t i = 0; i < 5000; ++i) {
      const uint64_t tid = 1 + (i / 300) % 2;
      sink.step(fmt::StepInfo{tid, 1, 0x401000 + (i % 7) * 4, 4, fmt::StepKind::Instruction});
      for (uint16_t r = uint16_t(i % 5); r < a.regs.size(); r += 5) {
        const uint32_t n = a.regs[r].bytes();
        if (n == 0 || n > 8) continue;
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        const uint64_t v = i % 3 ? i * 8 + r : x;  // small deltas and wide values
        send(sink, i % 29 == 0 ? 100 : tid, r, v, n);
      }
      if (i % 23 == 0) send(sink, tid, a.pc_index, 0x402000 + i, a.regs[a.pc_index].bytes());
    }
    sink.end();
    return {};
  }

 private:
  void send(fmt::TraceSink& sink, uint64_t tid, uint16_t reg, uint64_t v, uint32_t n) {
    if (as_values_) return sink.reg_value(tid, reg, v, n);
    uint8_t le[8];
    for (uint32_t b = 0; b < 8; ++b) le[b] = uint8_t(v >> (8 * b));
    sink.reg(tid, reg, {le, n});
  }
  ArchId arch_;
  bool as_values_;
};

void check_alike(ArchId arch) {
  RegReader bytes(arch, false), values(arch, true);
  const std::string want = test::built_data_region(bytes, test::temp_index_path("reg-values-bytes"));
  CHECK(test::built_data_region(values, test::temp_index_path("reg-values-values")) == want);  // as this machine builds (two threads on two CPUs)
  test::OneCpuAffinity pin;
  REQUIRE(pin.pinned());
  CHECK(test::built_data_region(values, test::temp_index_path("reg-values-values-1")) == want);  // one thread: the live state takes the integers
}

}  // namespace

TEST_CASE("register values: reg_value builds the index reg() builds, on one thread and on two") {
  check_alike(ArchId::X86_64);
  check_alike(ArchId::AArch64);
  check_alike(ArchId::I386);
}

TEST_CASE("register values: a sink's default reg_value hands reg() the low bytes, little-endian") {
  struct Last : fmt::TraceSink {
    std::string got;
    void begin(const fmt::TraceInfo&) override {}
    void step(const fmt::StepInfo&) override {}
    void reg(uint64_t, uint16_t, std::span<const uint8_t> v) override { got.assign(v.begin(), v.end()); }
    void mem_write(uint64_t, uint64_t, std::span<const uint8_t>) override {}
  } s;
  s.reg_value(1, 0, 0x1122334455667788ull, 4);
  CHECK(s.got == std::string("\x88\x77\x66\x55", 4));
  s.reg_value(1, 0, 0x1122334455667788ull, 8);
  CHECK(s.got == std::string("\x88\x77\x66\x55\x44\x33\x22\x11", 8));
}

}  // namespace test_build_reg_values
