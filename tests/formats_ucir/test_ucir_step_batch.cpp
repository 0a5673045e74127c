// The reader hands plain steps over in batches (BatchSink::steps) to a sink that takes them: at
// most StepBatch::kSteps a batch, one thread each, and every call that is
// not batched (a syscall step, a thread change, the end) after the
// batched steps before it, so a sink sees the calls in the stream's order.
#include <doctest/doctest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "formats/common/step_batch.h"
#include "formats/ucir/ucir_writer.h"
#include "ucir_test_support.h"

// A namespace of its own: CI's unity build compiles it with its suite's other files.
namespace test_ucir_step_batch {

using namespace ttd;
using ttd::test::RecordingSink;
using Lines = std::vector<std::string>;

namespace {

uint16_t R(const char* name) { return *arch_desc(ArchId::X86_64).find(name); }

std::string hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

// Logs each batch's size (as a log line, so its place among the calls
// shows) and then the per-step calls it stands for.
struct BatchCountingSink : RecordingSink, fmt::BatchSink {
  std::vector<size_t> batches;
  void steps(const fmt::StepBatch& b) override {
    batches.push_back(b.steps().size());
    log.push_back("batch " + std::to_string(b.steps().size()));
    fmt::send_one_by_one(b, *this);
  }
};

constexpr uint64_t kSteps = 10000, kSyscallEvery = 3000, kSwitchAt = 7000;

}  // namespace

TEST_CASE("ucir step batches: plain steps in batches of at most 4,096, the other calls in order between them") {
  const std::string path = test::temp_path("batches.ucir");
  Lines want;  // the calls after the first step, batch lines left out
  {
    auto w = fmt::UcirWriter::create(path, ArchId::X86_64).value();
    w->begin_keyframe();
    w->mem_map(0x1000, 0x1000, 5, "code");
    w->reg_u64(R("rax"), 1);
    w->end_keyframe();
    w->begin_frame();
    w->jmp(0x1000, 0);
    uint64_t pc = 0x1000;
    for (uint64_t i = 0; i < kSteps; ++i) {
      if (i == kSwitchAt) {  // thread 2, begun by its keyframe: its steps are batched apart
        w->begin_thread_keyframe(2);
        w->jmp(pc, 0);
        w->end_keyframe();
        w->set_thread(2);
        w->begin_frame();
        w->jmp(pc, 0);
        want.push_back("thread_begin 2 1");
        want.push_back("reg rip=" + hex(pc) + " tid=2");
      }
      const uint64_t tid = i >= kSwitchAt ? 2 : 1;
      const std::string thread = tid == 1 ? "" : " tid=2";
      w->reg_u64(R("rbx"), i);
      if (i % 3 == 0) {
        const uint8_t v[8] = {uint8_t(i), 1, 2, 3, 4, 5, 6, 7};
        w->mem_write(0x1800 + (i % 64) * 8, v);
      }
      w->step(2);
      const bool sys = i % kSyscallEvery == kSyscallEvery - 1;
      want.push_back("step pc=" + hex(pc) + " size=2 " + (sys ? "syscall" : "instruction") + " tid=" +
                     std::to_string(tid) + " pid=1");
      if (sys) {
        const uint64_t args[] = {i};
        w->begin_syscall(39, 77, args);
        w->reg_u64(R("rax"), 77);
        w->end_syscall();
        want.push_back("attr syscall=39");
        want.push_back("attr args=[" + std::to_string(i) + "]");
        want.push_back("attr ret=77");
      }
      want.push_back("reg rbx=" + hex(i) + thread);
      if (i % 3 == 0) {
        char b[3];
        std::snprintf(b, sizeof b, "%02x", unsigned(uint8_t(i)));
        want.push_back("write " + hex(0x1800 + (i % 64) * 8) + " " + b + "01020304050607");
      }
      if (sys) want.push_back("reg rax=0x4d" + thread);
      pc += 2;
    }
    REQUIRE(w->close().ok());
  }
  want.push_back("end");

  BatchCountingSink sink;
  Status s = test::read_ucir(path, sink);
  REQUIRE_MESSAGE(s.ok(), s.error().to_string());
  Lines got;
  for (const std::string& line : sink.after_first_step())
    if (line.rfind("batch ", 0) != 0) got.push_back(line);
  CHECK(test::join(got) == test::join(want));

  // Batches: full ones, then what the syscall steps and the thread switch cut off.
  size_t batched = 0;
  for (size_t n : sink.batches) {
    CHECK(n >= 1);
    CHECK(n <= fmt::StepBatch::kSteps);
    batched += n;
  }
  CHECK(sink.batches.size() >= 4);
  // All but the syscall steps, the first step (its thread not yet found
  // alive), the step the thread keyframe joins and thread 2's first two
  // (the first goes one at a time, and the effects read after it, the
  // second's, leave the batch with it).
  CHECK(batched == kSteps - kSteps / kSyscallEvery - 4);
}

}  // namespace test_ucir_step_batch
