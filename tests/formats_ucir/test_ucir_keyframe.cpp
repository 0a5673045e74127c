// The keyframe policy: usercorn trims zero bytes off each mapping's data
// but writes it at the mapping base, so a lone short write at a base is
// not trusted.
#include <doctest/doctest.h>

#include <algorithm>
#include <vector>

#include "formats/ucir/ucir_op_encoder.h"
#include "formats/ucir/ucir_writer.h"
#include "ucir_test_support.h"

using namespace ttd;
using namespace ttd::fmt::ucir;
using ttd::test::RecordingSink;
using Lines = std::vector<std::string>;

namespace {

// A keyframe holding `body` (count ops), then one step.
Lines keyframe_lines(const std::vector<uint8_t>& body, uint32_t count, RecordingSink& sink) {
  std::vector<uint8_t> ops;
  OpEncoder e(ops);
  e.frame_header(OP_KEYFRAME, 0, count);
  e.bytes(body);
  e.frame_header(OP_FRAME, 0, 2);
  e.jmp(0x1000, 1);
  e.step(1);
  Status s = test::read_ucir(test::write_raw_ucir(ops), sink);
  REQUIRE_MESSAGE(s.ok(), s.error().to_string());
  Lines before = sink.before_first_step();
  // Keep memory lines only.
  Lines mem;
  for (const auto& l : before)
    if (l.rfind("map", 0) == 0 || l.rfind("write", 0) == 0 || l.rfind("unknown", 0) == 0) mem.push_back(l);
  return mem;
}

bool has(const Lines& l, const std::string& s) { return std::find(l.begin(), l.end(), s) != l.end(); }

}  // namespace

TEST_CASE("keyframe: a single short write at a mapping's base is untrusted (usercorn's trimming)") {
  std::vector<uint8_t> b;
  OpEncoder e(b);
  e.mem_map(0x10000, 0x2000, 3, 0, 0, "heap", "");
  const uint8_t data[4] = {1, 2, 3, 4};
  e.mem_write(0x10000, data);
  RecordingSink sink;
  const Lines mem = keyframe_lines(b, 2, sink);
  CHECK(test::join(mem) == test::join(Lines{"map 0x10000 0x2000 prot=3 heap", "unknown 0x10000 0x2000"}));
  CHECK(sink.property("keyframe") == "1 mappings, 1 writes, 1 mappings unknown (zero-trimmed data)");
  CHECK(sink.info.caps.note.find("1 keyframe mapping(s) unknown") != std::string::npos);
}

TEST_CASE("keyframe: trusted writes") {
  std::vector<uint8_t> b;
  OpEncoder e(b);
  uint32_t n = 0;
  const uint8_t data[4] = {1, 2, 3, 4};
  // Covers the whole mapping.
  e.mem_map(0x10000, 4, 1, 0, 0, "a", ""), ++n;
  e.mem_write(0x10000, data), ++n;
  // Empty: the mapping was all zeros.
  e.mem_map(0x20000, 0x1000, 1, 0, 0, "b", ""), ++n;
  e.mem_write(0x20000, {}), ++n;
  // Not at the base.
  e.mem_map(0x30000, 0x1000, 1, 0, 0, "c", ""), ++n;
  e.mem_write(0x30010, data), ++n;
  // Several writes in one mapping.
  e.mem_map(0x40000, 0x2000, 1, 0, 0, "d", ""), ++n;
  e.mem_write(0x40000, data), ++n;
  e.mem_write(0x41000, data), ++n;
  // No write at all: known zeros from the map.
  e.mem_map(0x50000, 0x1000, 1, 0, 0, "e", ""), ++n;
  RecordingSink sink;
  const Lines mem = keyframe_lines(b, n, sink);
  for (const auto& l : mem) CHECK(l.rfind("unknown", 0) != 0);
  CHECK(has(mem, "write 0x10000 01020304"));
  CHECK(has(mem, "write 0x30010 01020304"));
  CHECK(has(mem, "write 0x41000 01020304"));
  CHECK(sink.property("keyframe") == "5 mappings, 5 writes, 0 mappings unknown (zero-trimmed data)");
}

TEST_CASE("keyframe: the writer's keyframes are always trusted (pages, plus a zero byte after a lone base write)") {
  const ArchId a = ArchId::X86_64;
  const std::string path = test::temp_path("kfw.ucir");
  std::vector<uint8_t> big(0x2800, 0x11);
  {
    auto w = fmt::UcirWriter::create(path, a).value();
    w->begin_keyframe();
    w->mem_map(0x10000, 0x4000, 3, "big");
    w->mem_write(0x10000, big);  // 3 pieces: 0x1000, 0x1000, 0x800
    w->mem_map(0x20000, 0x1000, 3, "small");
    const uint8_t d[2] = {7, 8};
    w->mem_write(0x20000, d);  // lone base write: gets a zero byte after it
    w->mem_map(0x30000, 2, 3, "exact");
    w->mem_write(0x30000, d);  // covers the mapping: nothing added
    w->end_keyframe();
    w->begin_frame();
    w->jmp(0x1000, 1);
    w->step(1);
    REQUIRE(w->close().ok());
  }
  RecordingSink sink;
  REQUIRE(test::read_ucir(path, sink).ok());
  Lines mem;
  for (const auto& l : sink.before_first_step())
    if (l.rfind("map", 0) == 0 || l.rfind("unknown", 0) == 0 || l.rfind("write", 0) == 0)
      mem.push_back(l.substr(0, 24));
  const Lines want = {
      "map 0x10000 0x4000 prot=",
      "write 0x10000 1111111111",
      "write 0x11000 1111111111",
      "write 0x12000 1111111111",
      "map 0x20000 0x1000 prot=",
      "write 0x20000 0708",
      "map 0x30000 0x2 prot=3 e",
      "write 0x30000 0708",
      "write 0x20002 00",
  };
  CHECK(test::join(mem) == test::join(want));
  CHECK(sink.property("keyframe") == "3 mappings, 6 writes, 0 mappings unknown (zero-trimmed data)");
}

TEST_CASE("keyframe: registers of usercorn's list the keyframe leaves out are zero, others stay unknown") {
  std::vector<uint8_t> b;
  OpEncoder e(b);
  e.reg(35, 5);     // rax
  e.reg(25, 0x202); // eflags: not in usercorn's x86-64 list, but still applied
  RecordingSink sink;
  (void)keyframe_lines(b, 2, sink);
  const Lines before = sink.before_first_step();
  CHECK(has(before, "reg rax=0x5"));
  CHECK(has(before, "reg eflags=0x202"));
  CHECK(has(before, "reg r15=0x0"));
  CHECK(has(before, "reg rsp=0x0"));
  CHECK(!has(before, "reg rax=0x0"));
  for (const auto& l : before) {
    CHECK(l.rfind("reg rip", 0) != 0);
    CHECK(l.rfind("reg xmm", 0) != 0);
    CHECK(l.rfind("reg fs_base", 0) != 0);
  }
  CHECK(sink.property("registers zero from the keyframe") ==
        "rbx rcx rdx rsi rdi rbp rsp r8 r9 r10 r11 r12 r13 r14 r15");
}

TEST_CASE("keyframe: later keyframes are checked and skipped") {
  std::vector<uint8_t> ops;
  OpEncoder e(ops);
  e.frame_header(OP_KEYFRAME, 0, 1);
  e.reg(35, 1);
  e.frame_header(OP_FRAME, 0, 2);
  e.jmp(0x1000, 1);
  e.step(1);
  e.frame_header(OP_KEYFRAME, 0, 1);
  e.reg(35, 99);
  e.frame_header(OP_FRAME, 0, 1);
  e.step(1);
  RecordingSink sink;
  REQUIRE(test::read_ucir(test::write_raw_ucir(ops), sink).ok());
  CHECK(test::join(sink.after_first_step()) == test::join(Lines{"step pc=0x1000 size=1 instruction tid=1 pid=1",
                                         "step pc=0x1001 size=1 instruction tid=1 pid=1", "end"}));
}

TEST_CASE("keyframe: a write belongs to the latest mapping holding its address") {
  const uint8_t data[4] = {1, 2, 3, 4};
  std::vector<uint8_t> b;
  OpEncoder e(b);
  e.mem_map(0x10000, 0x4000, 3, 0, 0, "outer", "");
  e.mem_map(0x11000, 0x1000, 3, 0, 0, "inner", "");
  e.mem_write(0x10000, data);  // outer's only write
  e.mem_write(0x11000, data);  // inner's only write
  SUBCASE("each mapping's lone base write is untrusted") {
    RecordingSink sink;
    const Lines mem = keyframe_lines(b, 4, sink);
    CHECK(has(mem, "unknown 0x10000 0x4000"));
    CHECK(has(mem, "unknown 0x11000 0x1000"));
  }
  SUBCASE("a second write in the outer mapping (past the inner one) makes it trusted") {
    e.mem_write(0x13000, data);
    RecordingSink sink;
    const Lines mem = keyframe_lines(b, 5, sink);
    CHECK(has(mem, "write 0x10000 01020304"));
    CHECK(has(mem, "unknown 0x11000 0x1000"));
  }
}

TEST_CASE("keyframe: many mappings and writes are handled without quadratic cost") {
  std::vector<uint8_t> b;
  OpEncoder e(b);
  const uint8_t data[1] = {9};
  const uint32_t n = 20000;
  for (uint32_t i = 0; i < n; ++i) e.mem_map(0x100000 + uint64_t(i) * 0x1000, 0x1000, 3, 0, 0, "", "");
  for (uint32_t i = 0; i < n; ++i) e.mem_write(0x100010 + uint64_t(i) * 0x1000, data);
  RecordingSink sink;
  (void)keyframe_lines(b, 2 * n, sink);
  CHECK(sink.property("keyframe") == "20000 mappings, 20000 writes, 0 mappings unknown (zero-trimmed data)");
}
