// BatchSink::steps (a batch of plain steps, formats/common/step_batch.h)
// builds the index the same steps build when sent one call at a time:
// the step stream, the summaries, the keyframes (on one thread and, on
// two CPUs, through the replay thread's effect log). The batches cross
// chunk boundaries, start a thread's run and follow calls that are not
// batched (thread changes, a mapping, attributes).
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
#include "tests/engine/index_data_region.h"
#include "tests/support/one_cpu_affinity.h"

// A namespace of its own: CI's unity build compiles it with its suite's other files.
namespace test_build_step_batch {

using namespace ttd;

namespace {

class BatchReader : public fmt::TraceReader {
 public:
  explicit BatchReader(bool batched) : batched_(batched) {}
  Status read(fmt::TraceSink& sink, const fmt::Progress&) override {
    fmt::TraceInfo info;
    info.format = "batch";
    info.arch = ArchId::X86_64;
    sink.begin(info);
    const ArchDesc& a = arch_desc(ArchId::X86_64);
    sink.thread_begin(1, 1);
    sink.mem_map(1, 0x10000, 0x10000, 3, "data");
    uint64_t x = 88172645463325252ull;
    fmt::StepBatch b;
    for (uint64_t i = 0; i < 6000; ++i) {
      const uint64_t tid = 1 + (i / 700) % 2;  // runs of one thread, crossing the 64-step chunks
      if (i % 1000 == 999) {  // a step the batch cannot hold: a syscall with an attribute
        flush(sink, b);
        sink.step(fmt::StepInfo{tid, 1, 0x401000, 2, fmt::StepKind::Syscall});
        sink.attr("syscall", fmt::AttrValue(uint64_t(1)));
        sink.mem_write(1, 0x10100, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>("abc"), 3));
        continue;
      }
      if (i == 2500) {
        flush(sink, b);
        sink.thread_begin(3, 1);  // a thread announced between batches
      }
      if (!b.empty() && b.tid != tid) flush(sink, b);
      b.tid = tid;
      b.pid = 1;
      b.room(64);
      for (uint16_t r = uint16_t(i % 5); r < a.regs.size(); r += 7) {
        const uint32_t n = a.regs[r].bytes();
        if (n == 0 || n > 8) continue;
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        b.reg_value(r, i % 3 ? i * 8 + r : x, n);
      }
      if (i % 11 == 0) b.reg_value(uint16_t(a.regs.size() + 3), 7, 8);  // no such register: ignored by both
      if (i % 13 == 0) b.reg_value(a.pc_index, 0x402000 + i, 8);
      if (i % 2 == 0) b.mem_read(0x10000 + (x & 0xff0), 8);
      if (i % 3 == 0) {
        uint8_t v[16];
        for (int k = 0; k < 16; ++k) v[k] = uint8_t(x >> (k % 8 * 8));
        b.mem_write(0x10000 + (i * 8) % 0x8000, v, i % 2 ? 8 : uint32_t(1 + i % 16));
      }
      b.end_step(0x401000 + (i % 7) * 4, 4);
      if (b.full() || i % 500 == 17) flush(sink, b);  // batches of every size
    }
    flush(sink, b);
    sink.end();
    return {};
  }

 private:
  void flush(fmt::TraceSink& sink, fmt::StepBatch& b) {
    if (b.empty()) return;
    if (batched_)
      dynamic_cast<fmt::BatchSink&>(sink).steps(b);
    else
      fmt::send_one_by_one(b, sink);  // one call per step and per effect
    b.clear();
  }
  bool batched_;
};

// Logs the per-step calls a batch stands for.
struct CallLog : fmt::TraceSink {
  std::string log;
  void begin(const fmt::TraceInfo&) override {}
  void step(const fmt::StepInfo& s) override {
    log += "step " + std::to_string(s.tid) + "/" + std::to_string(s.pid) + " " + std::to_string(s.pc) + "+" +
           std::to_string(s.size) + (s.kind == fmt::StepKind::Instruction ? "\n" : " ?\n");
  }
  void reg(uint64_t tid, uint16_t r, std::span<const uint8_t> v) override {
    log += "reg " + std::to_string(tid) + " " + std::to_string(r) + " " + std::to_string(v.size()) + " " +
           std::to_string(v[0]) + "\n";
  }
  void mem_read(uint64_t pid, uint64_t addr, uint32_t size, std::span<const uint8_t> v) override {
    log += "read " + std::to_string(pid) + " " + std::to_string(addr) + " " + std::to_string(size) + " " +
           std::to_string(v.size()) + "\n";
  }
  void mem_write(uint64_t pid, uint64_t addr, std::span<const uint8_t> v) override {
    log += "write " + std::to_string(pid) + " " + std::to_string(addr) + " " +
           std::string(reinterpret_cast<const char*>(v.data()), v.size()) + "\n";
  }
};

}  // namespace

TEST_CASE("step batch: BatchSink::steps builds the index the per-step calls build, on one thread and on two") {
  BatchReader calls(false), batches(true);
  const std::string want = test::built_data_region(calls, test::temp_index_path("step-batch-calls"));
  CHECK(test::built_data_region(batches, test::temp_index_path("step-batch-batches")) == want);  // as this machine builds (two threads on two CPUs)
  test::OneCpuAffinity pin;
  REQUIRE(pin.pinned());
  CHECK(test::built_data_region(calls, test::temp_index_path("step-batch-calls-1")) == want);
  CHECK(test::built_data_region(batches, test::temp_index_path("step-batch-batches-1")) == want);
}

TEST_CASE("step batch: send_one_by_one makes the per-step calls in order") {
  fmt::StepBatch b;
  b.tid = 4;
  b.pid = 2;
  b.room(4);
  b.reg_value(0, 0x41, 8);
  b.mem_write(0x100, reinterpret_cast<const uint8_t*>("hi"), 2);
  b.end_step(0x1000, 3);
  b.end_step(0x1003, 2);  // no effects
  b.mem_read(0x200, 4);
  b.reg_value(1, 0x42, 4);
  b.end_step(0x1005, 1);
  CallLog s;
  fmt::send_one_by_one(b, s);
  CHECK(s.log ==
        "step 4/2 4096+3\nreg 4 0 8 65\nwrite 2 256 hi\n"
        "step 4/2 4099+2\n"
        "step 4/2 4101+1\nread 2 512 4 0\nreg 4 1 4 66\n");
  b.clear();
  CHECK(b.empty());
  CHECK(b.effect_count() == 0);
}

}  // namespace test_build_step_batch
