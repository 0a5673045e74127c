// The Unicorn 1.x register table against the architecture tables: every
// register usercorn's keyframe covers resolves, the pc never does, and the
// numbers equal the Unicorn 2.0.1 ids the state/ tables carry (2.x kept
// the 1.x numbering for all of them).
#include <doctest/doctest.h>

#include <set>
#include <string>

#include "formats/ucir/uc1_registers.h"
#include "formats/ucir/ucir_op_encoder.h"
#include "formats/ucir/ucir_writer.h"
#include "ucir_test_support.h"

using namespace ttd;
using namespace ttd::fmt::ucir;

TEST_CASE("uc1 registers: tables resolve against every architecture and match Unicorn 2 ids") {
  const struct {
    ArchId arch;
    size_t tracked;
  } cases[] = {{ArchId::X86_64, 16}, {ArchId::I386, 15}, {ArchId::AArch64, 32}, {ArchId::Arm, 15}, {ArchId::Mips, 31}, {ArchId::Ppc32, 0}};
  for (const auto& c : cases) {
    const ArchDesc& a = arch_desc(c.arch);
    CAPTURE(a.name);
    const Uc1RegisterMap map(a);
    CHECK(map.tracked().size() == c.tracked);
    std::set<uint16_t> numbers;
    for (const Uc1Register& r : uc1_register_table(c.arch)) {
      CAPTURE(r.names);
      CHECK(numbers.insert(r.number).second);  // no number twice
      const int32_t idx = map.index_of(r.number);
      if (r.tracked) CHECK(idx >= 0);
      if (idx < 0) continue;
      CHECK(idx != a.pc_index);
      // The number the writer uses for this register equals the Unicorn
      // id of the state table, where it has one.
      if (map.number_of(uint16_t(idx)) == r.number && a.regs[idx].unicorn_id >= 0)
        CHECK(int(r.number) == a.regs[idx].unicorn_id);
    }
    CHECK(!map.number_of(a.pc_index).has_value());
    CHECK(map.index_of(60000) == Uc1RegisterMap::kUnknown);
  }
}

TEST_CASE("uc1 registers: spot checks of Unicorn 1.x numbers") {
  const Uc1RegisterMap x64(arch_desc(ArchId::X86_64));
  const ArchDesc& ax = arch_desc(ArchId::X86_64);
  CHECK(x64.index_of(35) == *ax.find("rax"));
  CHECK(x64.index_of(44) == *ax.find("rsp"));
  CHECK(x64.index_of(106) == *ax.find("r8"));
  CHECK(x64.index_of(25) == *ax.find("eflags"));
  CHECK(x64.index_of(41) == Uc1RegisterMap::kNoSlot);  // rip: the pc comes from OP_JMP / OP_STEP
  CHECK(x64.index_of(27) == Uc1RegisterMap::kUnknown);  // EIZ
  const Uc1RegisterMap a64(arch_desc(ArchId::AArch64));
  const ArchDesc& aa = arch_desc(ArchId::AArch64);
  CHECK(a64.index_of(199) == *aa.find("x0"));
  CHECK(a64.index_of(1) == *aa.find("x29"));
  CHECK(a64.index_of(2) == *aa.find("x30"));
  CHECK(a64.index_of(4) == *aa.find("sp"));
  const Uc1RegisterMap mips(arch_desc(ArchId::Mips));
  CHECK(mips.index_of(31) == *arch_desc(ArchId::Mips).find("sp"));  // UC_MIPS_REG_29
}

TEST_CASE("uc1 registers: aarch64 trace round trip (arm64 header, x29/x30/sp, v registers, zero fill)") {
  const ArchId a = ArchId::AArch64;
  const ArchDesc& d = arch_desc(a);
  const std::string path = test::temp_path("a64.ucir");
  {
    auto w = fmt::UcirWriter::create(path, a).value();
    w->begin_keyframe();
    w->reg_u64(*d.find("sp"), 0x7ffff000);
    w->reg_u64(*d.find("x30"), 0x400100);
    w->end_keyframe();
    w->begin_frame();
    w->jmp(0x400000, 8);
    w->reg_u64(*d.find("x0"), 42);
    uint8_t v[16] = {};
    v[0] = 0xee;
    w->reg(*d.find("v1"), v);
    w->step(4);
    w->step(4);
    REQUIRE(w->close().ok());
  }
  auto bytes = test::read_bytes(path);
  CHECK(std::string(reinterpret_cast<const char*>(bytes.data()) + 8) == "arm64");
  test::RecordingSink sink;
  Status s = test::read_ucir(path, sink);
  REQUIRE_MESSAGE(s.ok(), s.error().to_string());
  CHECK(sink.info.arch == a);
  CHECK(sink.property("registers zero from the keyframe") ==
        "x0 x1 x2 x3 x4 x5 x6 x7 x8 x9 x10 x11 x12 x13 x14 x15 x16 x17 x18 x19 x20 x21 x22 x23 x24 x25 x26 x27 "
        "x28 x29");
  const std::vector<std::string> after = {
      "step pc=0x400000 size=4 instruction tid=1 pid=1",
      "reg x0=0x2a",
      "reg v1=bytes:ee000000000000000000000000000000",
      "step pc=0x400004 size=4 instruction tid=1 pid=1",
      "end",
  };
  CHECK(test::join(sink.after_first_step()) == test::join(after));
}

TEST_CASE("uc1 registers: ppc32 extension covers every register of the table but the pc, Unicorn 2 numbers") {
  const ArchDesc& d = arch_desc(ArchId::Ppc32);
  const Uc1RegisterMap map(d);
  for (uint16_t i = 0; i < d.regs.size(); ++i) {
    CAPTURE(d.regs[i].name);
    if (i == d.pc_index) continue;
    REQUIRE(map.number_of(i).has_value());
    CHECK(map.index_of(*map.number_of(i)) == i);
  }
  CHECK(map.index_of(5) == *d.find("r3"));      // UC_PPC_REG_3
  CHECK(map.index_of(74) == *d.find("lr"));     // UC_PPC_REG_LR
  CHECK(map.index_of(79) == *d.find("cr"));     // UC_PPC_REG_CR
  CHECK(map.index_of(1) == Uc1RegisterMap::kNoSlot);  // UC_PPC_REG_PC
  CHECK(map.index_of(34) == Uc1RegisterMap::kUnknown);  // UC_PPC_REG_CR0: fields are not used
  CHECK(map.index_of(512) == *d.find("vr0"));   // ttd's number
}

TEST_CASE("uc1 registers: ppc32 trace round trip (ppc header, big-endian values, AltiVec, nothing zero-filled)") {
  const ArchId a = ArchId::Ppc32;
  const ArchDesc& d = arch_desc(a);
  const std::string path = test::temp_path("ppc.ucir");
  {
    auto w = fmt::UcirWriter::create(path, a).value();
    w->begin_keyframe();
    w->reg_u64(*d.find("r1"), 0x7ffff000);
    w->end_keyframe();
    w->begin_frame();
    w->jmp(0x10000, 8);
    w->reg_u64(*d.find("r3"), 0x12345678);
    w->reg_u64(*d.find("f1"), 0x3ff0000000000000ull);
    uint8_t v[16] = {};
    v[0] = 0xee;  // little-endian: the least significant byte
    w->reg(*d.find("vr1"), v);
    w->reg_u64(*d.find("vrsave"), 0xffff0000u);
    w->step(4);
    w->step(4);
    REQUIRE(w->close().ok());
    CHECK(w->dropped_registers() == 0);
  }
  auto bytes = test::read_bytes(path);
  CHECK(std::string(reinterpret_cast<const char*>(bytes.data()) + 8) == "ppc");
  CHECK(bytes[72] == 1);  // code order: big-endian
  CHECK(bytes[73] == 1);  // data order
  test::RecordingSink sink;
  Status s = test::read_ucir(path, sink);
  REQUIRE_MESSAGE(s.ok(), s.error().to_string());
  CHECK(sink.info.arch == a);
  const std::vector<std::string> after = {
      "step pc=0x10000 size=4 instruction tid=1 pid=1",
      "reg r3=bytes:12345678",  // big-endian: the sink gets target byte order
      "reg f1=bytes:3ff0000000000000",
      "reg vr1=bytes:000000000000000000000000000000ee",
      "reg vrsave=bytes:ffff0000",
      "step pc=0x10004 size=4 instruction tid=1 pid=1",
      "end",
  };
  CHECK(test::join(sink.after_first_step()) == test::join(after));
}
