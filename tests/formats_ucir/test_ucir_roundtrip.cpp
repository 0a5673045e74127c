// Writer -> reader round trips: every op, the keyframe, the sink calls in
// their exact order.
#include <doctest/doctest.h>

#include <algorithm>
#include <vector>

#include "formats/ucir/ucir_format.h"
#include "formats/ucir/ucir_op_encoder.h"
#include "formats/ucir/snappy_frame_reader.h"
#include "formats/ucir/ucir_ops.h"
#include "formats/ucir/ucir_writer.h"
#include "sample_traces.h"
#include "ucir_test_support.h"

// A namespace of its own: CI's unity build compiles it with its suite's other files.
namespace test_ucir_roundtrip {

using namespace ttd;
using namespace ttd::fmt;
using ttd::test::RecordingSink;
using Lines = std::vector<std::string>;

namespace {
uint16_t idx(ArchId a, const char* name) { return *arch_desc(a).find(name); }
}  // namespace

TEST_CASE("ucir round trip: sample x86-64 trace, keyframe and steps in order") {
  const std::string path = test::write_sample_x86_64(test::temp_path("sample.ucir"));
  RecordingSink sink;
  Status s = test::read_ucir(path, sink);
  REQUIRE_MESSAGE(s.ok(), s.error().to_string());

  CHECK(sink.info.format == "ucir");
  CHECK(sink.info.arch == ArchId::X86_64);
  CHECK(sink.info.os == "linux");
  CHECK(sink.info.exec_path == "/bin/sample");
  CHECK(sink.info.caps.registers);
  CHECK(sink.info.caps.memory_values);
  CHECK(sink.info.caps.memory_accesses);
  CHECK(sink.info.caps.code_bytes);
  CHECK(sink.property("version") == "1 (big-endian, as usercorn writes it)");

  const Lines before = {
      "begin ucir",
      "thread_begin 1 1",
      "reg rax=0x1234",
      "reg rsp=0x7ff000",
      "map 0x400000 0x1000 prot=5 /bin/sample",
      "write 0x400000 48c7c0010000000f05488904240f05",
      "map 0x7fe000 0x2000 prot=3 stack",
      // The writer's disambiguation byte, at the end of the keyframe: the
      // code mapping's only write was at its base and shorter than it.
      "write 0x40000f 00",
      "reg rbx=0x0", "reg rcx=0x0", "reg rdx=0x0", "reg rsi=0x0", "reg rdi=0x0", "reg rbp=0x0",
      "reg r8=0x0", "reg r9=0x0", "reg r10=0x0", "reg r11=0x0", "reg r12=0x0", "reg r13=0x0",
      "reg r14=0x0", "reg r15=0x0",
  };
  CHECK(test::join(sink.before_first_step()) == test::join(before));

  const Lines after = {
      "step pc=0x400000 size=7 instruction tid=1 pid=1",
      "reg rax=0x1",
      "step pc=0x400007 size=2 syscall tid=1 pid=1",
      "attr syscall=1",
      "attr args=[1,8384512,4]",
      "attr ret=4",
      "read 0x7ff000 4",
      "reg rax=0x4",
      "step pc=0x400009 size=4 instruction tid=1 pid=1",
      "write 0x7ff000 0400000000000000",
      "step pc=0x40000d size=2 syscall tid=1 pid=1",
      "attr syscall=231",
      "attr args=[0]",
      "attr ret=0",
      "reg rax=0x3c",
      "thread_end 1",
      "end",
  };
  CHECK(test::join(sink.after_first_step()) == test::join(after));
  CHECK(sink.steps.size() == 4);
}

TEST_CASE("ucir round trip: every op kind, special registers, map/unmap/protect") {
  const ArchId a = ArchId::X86_64;
  const std::string path = test::temp_path("allops.ucir");
  {
    auto w = UcirWriter::create(path, a).value();
    w->begin_keyframe();
    w->end_keyframe();
    w->begin_frame();
    w->jmp(0x1000, 16);
    w->mem_read(0x2000, 8);
    const uint8_t data[3] = {0xaa, 0xbb, 0xcc};
    w->mem_write(0x2000, data);
    uint8_t xmm[16];
    for (int i = 0; i < 16; ++i) xmm[i] = uint8_t(i + 1);
    w->reg(idx(a, "xmm3"), xmm);
    const uint8_t st0[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    w->reg(idx(a, "st0"), st0);
    w->reg_u64(idx(a, "eflags"), 0x246);
    w->reg_u64(idx(a, "fs_base"), 0x7000);
    w->reg_u64(idx(a, "orig_rax"), 5);  // no Unicorn 1.x number: dropped
    w->step(4);
    w->mem_map(0x10000, 0x3000, 3, "mmap");
    w->mem_protect(0x11000, 0x1000, 1);
    w->mem_unmap(0x12000, 0x1000);
    w->step(3);
    w->jmp(0x5000, 1);
    w->step(1);
    CHECK(w->dropped_registers() == 1);
    REQUIRE(w->close().ok());
  }
  RecordingSink sink;
  Status s = test::read_ucir(path, sink);
  REQUIRE_MESSAGE(s.ok(), s.error().to_string());
  CHECK(sink.property("keyframe") == "0 mappings, 0 writes, 0 mappings unknown (zero-trimmed data)");
  const Lines after = {
      "step pc=0x1000 size=4 instruction tid=1 pid=1",
      "read 0x2000 8",
      "write 0x2000 aabbcc",
      "reg xmm3=bytes:0102030405060708090a0b0c0d0e0f10",
      "reg st0=bytes:0102030405060708090a",
      "reg eflags=0x246",
      "reg fs_base=0x7000",
      "step pc=0x1004 size=3 instruction tid=1 pid=1",
      "map 0x10000 0x3000 prot=3 mmap",
      "protect 0x11000 0x1000 prot=1",
      "unmap 0x12000 0x1000",
      "step pc=0x5000 size=1 instruction tid=1 pid=1",
      "end",
  };
  CHECK(test::join(sink.after_first_step()) == test::join(after));
}

// The top-level op kinds of a written trace's op stream, in order (frames'
// bodies walked through; only the ops block() traces use).
std::vector<uint8_t> top_level_ops(const std::string& path) {
  std::vector<uint8_t> file = test::read_bytes(path), ops, block(SnappyFrameReader::kMaxBlock);
  std::FILE* f = std::tmpfile();
  std::fwrite(file.data() + 74, 1, file.size() - 74, f);
  std::rewind(f);
  SnappyFrameReader r(f, path, 74, file.size());
  for (;;) {
    auto n = r.next(block.data());
    REQUIRE(n.ok());
    if (*n == 0) break;
    ops.insert(ops.end(), block.begin(), block.begin() + long(*n));
  }
  std::vector<uint8_t> kinds;
  for (size_t p = 0; p < ops.size();) {
    const uint8_t op = ops[p];
    if (op == ucir::OP_FRAME || op == ucir::OP_KEYFRAME) kinds.push_back(op);
    switch (op) {
      case ucir::OP_FRAME: case ucir::OP_KEYFRAME: p += 13; break;  // its ops follow
      case ucir::OP_JMP: p += 13; break;
      case ucir::OP_STEP: p += 2; break;
      case ucir::OP_REG: p += 11; break;
      default: FAIL("op " << int(op) << " at " << p); return kinds;
    }
  }
  return kinds;
}

TEST_CASE("ucir: block() fills a frame with blocks up to 16 KiB, a thread switch starts a new one") {
  const ArchId a = ArchId::X86_64;
  const std::string path = test::temp_path("blocks.ucir");
  // Each block: OP_JMP (13 bytes) and two steps with a register change
  // (2 x 13): 39 bytes, so 16 KiB hold 421 blocks.
  constexpr int kBlocks = 3000;
  {
    auto w = UcirWriter::create(path, a).value();
    w->begin_keyframe();
    w->end_keyframe();
    for (int b = 0; b < kBlocks; ++b) {
      if (b == 2000) w->set_thread(2);
      w->block(0x1000 + uint64_t(b) * 0x10, 8);
      for (int i = 0; i < 2; ++i) {
        w->reg_u64(idx(a, "rax"), uint64_t(b * 2 + i));
        w->step(4);
      }
    }
    REQUIRE(w->close().ok());
  }
  const std::vector<uint8_t> kinds = top_level_ops(path);
  const size_t frames = size_t(std::count(kinds.begin(), kinds.end(), ucir::OP_FRAME));
  // Thread 1's 2000 blocks (78,000 bytes) in 5 frames, thread 2's 1000 in 3.
  const size_t per_frame = (UcirWriter::kBlockFrameBytes + 38) / 39;
  CHECK(frames == (2000 + per_frame - 1) / per_frame + (1000 + per_frame - 1) / per_frame);
  CHECK(frames == 8);
  RecordingSink sink;
  Status s = test::read_ucir(path, sink);
  REQUIRE_MESSAGE(s.ok(), s.error().to_string());
  REQUIRE(sink.steps.size() == 2 * kBlocks);
  for (int b : {0, 1, 420, 421, 422, 1999, 2000, 2999}) {
    CAPTURE(b);
    CHECK(sink.steps[size_t(b) * 2].pc == 0x1000 + uint64_t(b) * 0x10);
    CHECK(sink.steps[size_t(b) * 2 + 1].pc == 0x1004 + uint64_t(b) * 0x10);
    CHECK(sink.steps[size_t(b) * 2].tid == (b < 2000 ? 1u : 2u));
  }
}

TEST_CASE("ucir: big- and little-endian version fields, i386 registers, sniff and open") {
  const std::string be = test::write_sample_x86_64(test::temp_path("be.ucir"));
  const std::string le = test::write_sample_i386_le_version(test::temp_path("le.ucir"));
  auto hb = test::read_bytes(be), hl = test::read_bytes(le);
  CHECK(hb[4] == 0);
  CHECK(hb[7] == 1);
  CHECK(hl[4] == 1);
  CHECK(hl[7] == 0);

  RecordingSink sink;
  const auto entry = ucir_format();
  CHECK(entry.name == "ucir");
  CHECK(entry.sniff(le, hl));
  CHECK(!entry.sniff(le, std::vector<uint8_t>{'U', 'C', 'I'}));
  auto r = entry.open(le, {});
  REQUIRE(r.ok());
  REQUIRE((*r)->read(sink, {}).ok());
  CHECK(sink.info.arch == ArchId::I386);
  CHECK(sink.property("version") == "1 (little-endian)");
  CHECK(sink.property("arch") == "x86");
  // Keyframe set eax; usercorn's i386 list (incl. eflags and segment
  // registers) is zero otherwise; eip is not in it.
  const Lines before = sink.before_first_step();
  CHECK(std::find(before.begin(), before.end(), "reg eax=0x11223344") != before.end());
  CHECK(std::find(before.begin(), before.end(), "reg eflags=0x0") != before.end());
  CHECK(std::find(before.begin(), before.end(), "reg gs=0x0") != before.end());
  CHECK(std::find(before.begin(), before.end(), "reg eax=0x0") == before.end());
  for (const auto& l : before) CHECK(l.rfind("reg eip", 0) != 0);
  // Code mapping's single trimmed write is at the base and short: unknown.
  CHECK(std::find(before.begin(), before.end(), "unknown 0x8048000 0x1000") != before.end());
  const Lines after = {
      "step pc=0x8048000 size=1 instruction tid=1 pid=1",
      "reg eax=0x11223345",
      "step pc=0x8048001 size=1 instruction tid=1 pid=1",
      "end",
  };
  CHECK(test::join(sink.after_first_step()) == test::join(after));
}

TEST_CASE("ucir: a trace without a keyframe leaves registers unknown (no zero fill)") {
  std::vector<uint8_t> ops;
  fmt::ucir::OpEncoder e(ops);
  e.frame_header(fmt::ucir::OP_FRAME, 0, 3);
  e.jmp(0x1000, 2);
  e.reg(35, 9);  // rax
  e.step(2);
  RecordingSink sink;
  REQUIRE(test::read_ucir(test::write_raw_ucir(ops), sink).ok());
  CHECK(test::join(sink.before_first_step()) == test::join(Lines{"begin ucir", "thread_begin 1 1"}));
  CHECK(sink.property("keyframe").rfind("absent", 0) == 0);
  CHECK(test::join(sink.after_first_step()) == test::join(Lines{"step pc=0x1000 size=2 instruction tid=1 pid=1", "reg rax=0x9", "end"}));
}

TEST_CASE("ucir: reading twice gives the same calls") {
  const std::string path = test::write_sample_x86_64(test::temp_path("twice.ucir"));
  auto r = ucir_format().open(path, {});
  REQUIRE(r.ok());
  RecordingSink a, b;
  REQUIRE((*r)->read(a, {}).ok());
  REQUIRE((*r)->read(b, {}).ok());
  CHECK(test::join(a.log) == test::join(b.log));
}

}  // namespace test_ucir_roundtrip
