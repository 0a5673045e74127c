// Which step a syscall's effects belong to, built from raw op streams the
// way usercorn's trace.go orders them.
#include <doctest/doctest.h>

#include <vector>

#include "formats/ucir/ucir_op_encoder.h"
#include "formats/ucir/ucir_writer.h"
#include "sample_traces.h"
#include "ucir_test_support.h"

using namespace ttd;
using namespace ttd::fmt::ucir;
using ttd::test::RecordingSink;
using Lines = std::vector<std::string>;

namespace {

constexpr uint16_t kRax = 35, kRcx = 38, kRdi = 39;

Lines read_steps(const std::vector<uint8_t>& ops) {
  RecordingSink sink;
  Status s = test::read_ucir(test::write_raw_ucir(ops), sink);
  REQUIRE_MESSAGE(s.ok(), s.error().to_string());
  return sink.after_first_step();
}

}  // namespace

TEST_CASE("syscall right after OP_STEP: that step is a syscall step carrying the kernel's effects") {
  std::vector<uint8_t> ops;
  OpEncoder e(ops);
  e.frame_header(OP_FRAME, 0, 6);
  e.jmp(0x1000, 7);
  e.reg(kRax, 0);  // instruction 1 (mov eax, 0), its register change
  e.step(5);
  e.step(2);  // instruction 2: syscall
  const uint64_t args[] = {0, 0x3000, 16};
  e.syscall_header(0, 5, args, 2);
  const uint8_t in[5] = {'h', 'e', 'l', 'l', 'o'};
  e.mem_write(0x3000, in);
  e.reg(kRax, 5);
  e.reg(kRcx, 0x1007);  // next instruction's effect
  e.step(1);
  const Lines want = {
      "step pc=0x1000 size=5 instruction tid=1 pid=1",
      "reg rax=0x0",
      "step pc=0x1005 size=2 syscall tid=1 pid=1",
      "attr syscall=0",
      "attr args=[0,12288,16]",
      "attr ret=5",
      "write 0x3000 68656c6c6f",
      "reg rax=0x5",
      "step pc=0x1007 size=1 instruction tid=1 pid=1",
      "reg rcx=0x1007",
      "end",
  };
  CHECK(test::join(read_steps(ops)) == test::join(want));
}

TEST_CASE("syscall not right after OP_STEP belongs to the next step") {
  std::vector<uint8_t> ops;
  OpEncoder e(ops);
  e.frame_header(OP_FRAME, 0, 5);
  e.jmp(0x1000, 4);
  e.step(2);
  e.mem_read(0x2000, 4);  // the next instruction's op comes first
  const uint64_t args[] = {7};
  e.syscall_header(39, 77, args, 1);
  e.reg(kRax, 77);
  e.step(2);
  const Lines want = {
      "step pc=0x1000 size=2 instruction tid=1 pid=1",
      "step pc=0x1002 size=2 syscall tid=1 pid=1",
      "attr syscall=39",
      "attr args=[7]",
      "attr ret=77",
      "read 0x2000 4",
      "reg rax=0x4d",
      "end",
  };
  CHECK(test::join(read_steps(ops)) == test::join(want));
}

TEST_CASE("usercorn's exit order: SYSCALL{EXIT} before the exit instruction's registers and OP_STEP") {
  RecordingSink sink;
  const std::string path = test::write_usercorn_style_x86_64(test::temp_path("exit.ucir"));
  Status s = test::read_ucir(path, sink);
  REQUIRE_MESSAGE(s.ok(), s.error().to_string());
  const Lines want = {
      "step pc=0x400000 size=3 instruction tid=1 pid=1",
      "reg rdi=0x0",
      "step pc=0x400003 size=5 instruction tid=1 pid=1",
      "reg rax=0x3c",
      "step pc=0x400008 size=2 syscall tid=1 pid=1",
      "attr syscall=60",
      "attr args=[0]",
      "attr ret=0",
      "reg rcx=0x40000a",
      "thread_end 1",
      "end",
  };
  CHECK(test::join(sink.after_first_step()) == test::join(want));
}

TEST_CASE("ttd's writer order: OP_STEP then SYSCALL{EXIT} at the end of the stream") {
  std::vector<uint8_t> ops;
  OpEncoder e(ops);
  e.frame_header(OP_FRAME, 0, 4);
  e.jmp(0x1000, 4);
  e.reg(kRdi, 3);
  e.step(2);
  const uint64_t args[] = {3};
  e.syscall_header(231, 0, args, 1);
  e.exit();
  const Lines want = {
      "step pc=0x1000 size=2 syscall tid=1 pid=1",
      "attr syscall=231",
      "attr args=[3]",
      "attr ret=0",
      "reg rdi=0x3",
      "thread_end 1",
      "end",
  };
  CHECK(test::join(read_steps(ops)) == test::join(want));
}

TEST_CASE("a syscall with more than 65535 ops is split by the writer and joined by the reader") {
  const ArchId a = ArchId::X86_64;
  const std::string path = test::temp_path("bigsys.ucir");
  {
    auto w = fmt::UcirWriter::create(path, a).value();
    w->begin_frame();
    w->jmp(0x1000, 2);
    w->step(2);
    const uint64_t args[] = {1, 2};
    w->begin_syscall(17, 0, args);
    for (int i = 0; i < 70000; ++i) w->mem_read(0x10000 + uint64_t(i), 1);
    w->end_syscall();
    w->step(1);
    REQUIRE(w->close().ok());
  }
  RecordingSink sink;
  Status s = test::read_ucir(path, sink);
  REQUIRE_MESSAGE(s.ok(), s.error().to_string());
  REQUIRE(sink.steps.size() == 2);
  CHECK(sink.steps[0].kind == fmt::StepKind::Syscall);
  const Lines after = sink.after_first_step();
  size_t reads = 0, attrs = 0;
  for (const auto& l : after) reads += l.rfind("read ", 0) == 0, attrs += l.rfind("attr syscall", 0) == 0;
  CHECK(reads == 70000);
  CHECK(attrs == 1);
  CHECK(after[after.size() - 2] == "step pc=0x1002 size=1 instruction tid=1 pid=1");
}

TEST_CASE("effects after the last OP_STEP become a marker step") {
  std::vector<uint8_t> ops;
  OpEncoder e(ops);
  e.frame_header(OP_FRAME, 0, 3);
  e.jmp(0x1000, 4);
  e.step(2);
  e.reg(kRax, 1);
  const Lines want = {
      "step pc=0x1000 size=2 instruction tid=1 pid=1",
      "step pc=0x1002 size=0 marker tid=1 pid=1",
      "reg rax=0x1",
      "attr note=effects after the last OP_STEP",
      "end",
  };
  CHECK(test::join(read_steps(ops)) == test::join(want));
}
