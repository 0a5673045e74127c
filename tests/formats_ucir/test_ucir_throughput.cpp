// Read throughput on a trace shaped like usercorn's output (blocks of five
// instructions, most changing a register, some touching memory). The
// engine needs >= 20 M steps/s including the reader; this measures the
// reader alone with a sink that does nothing, and checks progress reports.
#include <doctest/doctest.h>

#include <chrono>
#include <ctime>
#include <time.h>

#include "formats/ucir/ucir_reader.h"
#include "formats/ucir/ucir_writer.h"
#include "ucir_test_support.h"

// A namespace of its own: CI's unity build compiles it with its suite's other files.
namespace test_ucir_throughput {

using namespace ttd;

namespace {

class NullSink : public fmt::TraceSink {
 public:
  uint64_t steps = 0, effects = 0;
  void begin(const fmt::TraceInfo&) override {}
  void step(const fmt::StepInfo&) override { ++steps; }
  void reg(uint64_t, uint16_t, std::span<const uint8_t>) override { ++effects; }
  void mem_write(uint64_t, uint64_t, std::span<const uint8_t>) override { ++effects; }
  void mem_read(uint64_t, uint64_t, uint32_t, std::span<const uint8_t>) override { ++effects; }
};

#if defined(__OPTIMIZE__) && !defined(__SANITIZE_ADDRESS__)
constexpr uint64_t kSteps = 4'000'000;
#else
constexpr uint64_t kSteps = 200'000;
#endif

double cpu_seconds(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

std::string write_big_trace() {
  const ArchId a = ArchId::X86_64;
  const std::string path = test::temp_path("big.ucir");
  auto w = fmt::UcirWriter::create(path, a).value();
  const uint16_t rax = *arch_desc(a).find("rax"), rcx = *arch_desc(a).find("rcx");
  w->begin_keyframe();
  w->reg_u64(rax, 1);
  w->end_keyframe();
  uint64_t pc = 0x400000;
  const uint8_t val[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  for (uint64_t i = 0; i < kSteps; ++i) {
    if (i % 5 == 0) {
      w->begin_frame();
      w->jmp(pc, 20);
    }
    if (i % 7 == 0) w->mem_read(0x7ff000 + (i & 0xff) * 8, 8);
    if (i % 11 == 0) w->mem_write(0x7ff800 + (i & 0xff) * 8, val);
    if (i % 4 != 3) w->reg_u64(i % 2 ? rax : rcx, i * 0x9e3779b97f4a7c15ull);
    w->step(4);
    pc += 4;
  }
  REQUIRE(w->close().ok());
  return path;
}

}  // namespace

TEST_CASE("throughput: reading a usercorn-shaped trace") {
  const std::string path = write_big_trace();
  auto r = fmt::UcirReader::open(path);
  REQUIRE(r.ok());
  NullSink sink;
  uint64_t reports = 0, last_done = 0;
  // CPU time as well as wall time: the build machines are shared, and a
  // loaded core makes the wall figure meaningless. Decompression runs on a
  // second thread, so the parsing thread's own CPU time is reported too.
  const double p0 = cpu_seconds(CLOCK_PROCESS_CPUTIME_ID), m0 = cpu_seconds(CLOCK_THREAD_CPUTIME_ID);
  const auto t0 = std::chrono::steady_clock::now();
  Status s = (*r)->read(sink, [&](uint64_t done, uint64_t total) {
    ++reports;
    CHECK(done >= last_done);
    CHECK(done <= total);
    last_done = done;
    return true;
  });
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double cpu = cpu_seconds(CLOCK_PROCESS_CPUTIME_ID) - p0, main = cpu_seconds(CLOCK_THREAD_CPUTIME_ID) - m0;
  REQUIRE_MESSAGE(s.ok(), s.error().to_string());
  CHECK(sink.steps == kSteps);
  CHECK(reports > 0);
  MESSAGE("read " << sink.steps << " steps, " << sink.effects << " effects in " << secs << " s: "
                  << double(sink.steps) / secs / 1e6 << " M steps/s wall, " << double(sink.steps) / cpu / 1e6
                  << " M steps/s of process CPU time, " << double(sink.steps) / main / 1e6
                  << " M steps/s of the parsing thread's CPU time");

  // Cancelling from the progress callback ends the read with an error.
  NullSink again;
  Status c = (*r)->read(again, [](uint64_t, uint64_t) { return false; });
  REQUIRE(!c.ok());
  CHECK(c.error().message == "read cancelled");
  std::remove(path.c_str());
}

}  // namespace test_ucir_throughput
