// ttd's thread extension of UCIR (docs/formats/ucir.md, "Threads"): a
// frame's pid field is its thread - 1, a thread keyframe after a clone
// gives the new thread its pc and registers; written with UcirWriter, read
// back step by step. Also: a writer that only ever names thread 1 writes
// the same bytes as one that never names a thread, and the thread limit.
#include <doctest/doctest.h>

#include <vector>

#include "formats/ucir/ucir_op_encoder.h"
#include "formats/ucir/ucir_ops.h"
#include "formats/ucir/ucir_writer.h"
#include "ucir_test_support.h"

using namespace ttd;
using namespace ttd::fmt::ucir;
using ttd::test::RecordingSink;
using Lines = std::vector<std::string>;

namespace {

const ArchDesc& x64() { return arch_desc(ArchId::X86_64); }
uint16_t R(const char* name) { return *x64().find(name); }

// main: one instruction, clone (thread 2 begins); thread 2: one instruction,
// exit; main: one instruction, exit_group.
void write_two_threads(fmt::UcirWriter& w, bool name_threads) {
  w.begin_keyframe();
  w.mem_map(0x1000, 0x1000, 5, "code");
  w.reg_u64(R("rax"), 1);
  w.end_keyframe();
  w.begin_frame();
  w.jmp(0x1000, 4);
  w.reg_u64(R("rax"), 2);
  w.step(2);
  w.step(2);  // clone
  const uint64_t args[] = {0x50f00, 0x7000};
  w.begin_syscall(56, 4243, args);
  w.reg_u64(R("rax"), 4243);
  w.end_syscall();
  if (!name_threads) return;
  w.begin_thread_keyframe(2);
  w.jmp(0x1004, 0);
  w.reg_u64(R("rax"), 0);
  w.reg_u64(R("rsp"), 0x7000);
  w.end_keyframe();

  w.set_thread(2);
  w.begin_frame();
  w.jmp(0x1004, 4);
  w.reg_u64(R("rbx"), 7);
  w.step(2);
  w.step(2);  // exit
  const uint64_t code[] = {0};
  w.begin_syscall(60, 0, code);
  w.exit();
  w.end_syscall();

  w.set_thread(1);
  w.begin_frame();
  w.jmp(0x1004, 4);
  w.reg_u64(R("rcx"), 9);
  w.step(2);
  w.step(2);  // exit_group
  w.begin_syscall(231, 0, code);
  w.exit();
  w.end_syscall();
}

}  // namespace

TEST_CASE("threads: each step on its frame's thread, a thread keyframe begins a thread at its clone") {
  const std::string path = test::temp_path("threads.ucir");
  {
    auto w = fmt::UcirWriter::create(path, ArchId::X86_64).value();
    write_two_threads(*w, true);
    REQUIRE(w->close().ok());
  }
  RecordingSink sink;
  Status s = test::read_ucir(path, sink);
  REQUIRE_MESSAGE(s.ok(), s.error().to_string());
  const Lines want = {
      "step pc=0x1000 size=2 instruction tid=1 pid=1",
      "reg rax=0x2",
      "step pc=0x1002 size=2 syscall tid=1 pid=1",
      "attr syscall=56",
      "attr args=[331520,28672]",
      "attr ret=4243",
      "reg rax=0x1093",
      "thread_begin 2 1",
      "reg rip=0x1004 tid=2",
      "reg rax=0x0 tid=2",
      "reg rsp=0x7000 tid=2",
      "step pc=0x1004 size=2 instruction tid=2 pid=1",
      "reg rbx=0x7 tid=2",
      "step pc=0x1006 size=2 syscall tid=2 pid=1",
      "attr syscall=60",
      "attr args=[0]",
      "attr ret=0",
      "thread_end 2",
      "step pc=0x1004 size=2 instruction tid=1 pid=1",
      "reg rcx=0x9",
      "step pc=0x1006 size=2 syscall tid=1 pid=1",
      "attr syscall=231",
      "attr args=[0]",
      "attr ret=0",
      "thread_end 1",
      "end",
  };
  CHECK(test::join(sink.after_first_step()) == test::join(want));
}

TEST_CASE("threads: a thread keyframe before the first step begins the thread before EID 0") {
  // What `ttd convert` writes for threads alive before the first step (UMTracer's).
  const std::string path = test::temp_path("alive.ucir");
  {
    auto w = fmt::UcirWriter::create(path, ArchId::X86_64).value();
    w->begin_keyframe();
    w->mem_map(0x1000, 0x1000, 5, "code");
    w->reg_u64(R("rax"), 1);
    w->end_keyframe();
    w->begin_thread_keyframe(2);
    w->jmp(0x1008, 0);
    w->reg_u64(R("rsp"), 0x7000);
    w->end_keyframe();
    w->begin_frame();
    w->jmp(0x1000, 4);
    w->reg_u64(R("rax"), 2);
    w->step(2);
    w->set_thread(2);
    w->begin_frame();
    w->jmp(0x1008, 4);
    w->reg_u64(R("rbx"), 3);
    w->step(2);
    REQUIRE(w->close().ok());
  }
  RecordingSink sink;
  Status s = test::read_ucir(path, sink);
  REQUIRE_MESSAGE(s.ok(), s.error().to_string());
  const Lines before = sink.before_first_step();
  REQUIRE(before.size() >= 3);
  const Lines thread2(before.end() - 3, before.end());
  CHECK(test::join(thread2) == test::join({"thread_begin 2 1", "reg rip=0x1008 tid=2", "reg rsp=0x7000 tid=2"}));
  const Lines want = {
      "step pc=0x1000 size=2 instruction tid=1 pid=1",
      "reg rax=0x2",
      "step pc=0x1008 size=2 instruction tid=2 pid=1",
      "reg rbx=0x3 tid=2",
      "end",
  };
  CHECK(test::join(sink.after_first_step()) == test::join(want));
}

TEST_CASE("threads: naming only thread 1 writes what usercorn writes (frame pid 0, no thread keyframe)") {
  const std::string plain = test::temp_path("plain.ucir"), named = test::temp_path("named.ucir");
  for (const std::string& p : {plain, named}) {
    auto w = fmt::UcirWriter::create(p, ArchId::X86_64).value();
    if (p == named) w->set_thread(1);
    write_two_threads(*w, false);
    if (p == named) w->set_thread(1);
    REQUIRE(w->close().ok());
  }
  CHECK(test::read_bytes(plain) == test::read_bytes(named));
}

TEST_CASE("threads: a frame naming too many threads is an error with its offset") {
  std::vector<uint8_t> ops;
  OpEncoder e(ops);
  e.frame_header(OP_FRAME, kMaxUcirThreads, 1);
  e.step(1);
  RecordingSink sink;
  Status s = test::read_ucir(test::write_raw_ucir(ops), sink);
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().to_string().find("OP_FRAME's pid field 4096 names thread 4097; a trace may name at most 4096 "
                                   "threads at op stream offset 0") != std::string::npos);

  // 4096 distinct threads (pid fields 0..4095) are fine.
  ops.clear();
  for (uint64_t pid = 0; pid <= kMaxUcirThreads; ++pid) {
    OpEncoder f(ops);
    f.frame_header(OP_FRAME, pid % kMaxUcirThreads == pid ? pid : 0, 1);
    f.step(1);
  }
  RecordingSink ok_sink;
  CHECK(test::read_ucir(test::write_raw_ucir(ops), ok_sink).ok());
}

TEST_CASE("threads: usercorn's exit quirk still applies within one thread, a thread switch settles it") {
  // STEP SYSCALL{EXIT} then a frame of another thread: the exit is the
  // step's own (ttd's order), not given to the other thread's next step.
  std::vector<uint8_t> ops;
  OpEncoder e(ops);
  e.frame_header(OP_FRAME, 1, 3);
  e.jmp(0x2000, 2);
  e.step(2);
  const uint64_t code[] = {0};
  e.syscall_header(60, 0, code, 1);
  ops.push_back(OP_EXIT);
  e.frame_header(OP_FRAME, 0, 2);
  e.jmp(0x1000, 1);
  e.step(1);
  RecordingSink sink;
  Status s = test::read_ucir(test::write_raw_ucir(ops), sink);
  REQUIRE_MESSAGE(s.ok(), s.error().to_string());
  const Lines want = {
      "step pc=0x2000 size=2 syscall tid=2 pid=1",
      "thread_begin 2 1",
      "attr syscall=60",
      "attr args=[0]",
      "attr ret=0",
      "thread_end 2",
      "step pc=0x1000 size=1 instruction tid=1 pid=1",
      "end",
  };
  CHECK(test::join(sink.after_first_step()) == test::join(want));
}

TEST_CASE("threads: a thread's steps after its exit begin it again, also straight after the exit") {
  // The assembler remembers the thread last found alive (a run of steps
  // skips the search); an exit must make it forget, or the step after the
  // exit would come without its thread_begin.
  const std::string path = test::temp_path("again.ucir");
  {
    auto w = fmt::UcirWriter::create(path, ArchId::X86_64).value();
    w->begin_keyframe();
    w->mem_map(0x1000, 0x1000, 5, "code");
    w->end_keyframe();
    w->begin_frame();
    w->jmp(0x1000, 4);
    w->step(2);
    w->begin_thread_keyframe(2);
    w->jmp(0x1004, 0);
    w->end_keyframe();
    w->set_thread(2);
    w->begin_frame();
    w->jmp(0x1004, 4);
    w->step(2);
    w->step(2);  // exit: usercorn's quirk puts it on the next step of the thread
    const uint64_t code[] = {0};
    w->begin_syscall(60, 0, code);
    w->exit();
    w->end_syscall();
    w->jmp(0x1008, 4);
    w->step(2);
    w->step(2);
    REQUIRE(w->close().ok());
  }
  RecordingSink sink;
  Status s = test::read_ucir(path, sink);
  REQUIRE_MESSAGE(s.ok(), s.error().to_string());
  const Lines got = sink.after_first_step();
  int begins = 0;
  size_t end2 = 0, second_begin = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (got[i] == "thread_begin 2 1" && ++begins == 2) second_begin = i;
    if (got[i] == "thread_end 2" && end2 == 0) end2 = i;
  }
  CHECK(begins == 2);
  CHECK(end2 > 0);
  CHECK(second_begin > end2);
  // Thread 2's step after its exit comes right after the thread_begin.
  REQUIRE(second_begin + 1 < got.size());
  CHECK(got[second_begin - 1].rfind("step ", 0) == 0);
  CHECK(got[second_begin - 1].find("tid=2") != std::string::npos);
}
