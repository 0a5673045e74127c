// The recorder's per-step fast paths (docs/performance.md, "Recorder speed,
// session 12") against their slow equivalents:
// - UcirWriter's inline ops (step_inline, reg_inline, mem_read_inline,
//   mem_write_inline) must write the bytes the virtual ops write, including
//   where they hand over to them (no frame open, a keyframe, an open
//   syscall, the pc, a register UCIR cannot name, a wide register, a frame
//   split);
// - RegisterTracker's fixed-size compare of registers narrower than 8 bytes
//   (x87 control registers, 2 bytes of value in 4-byte slots side by side)
//   must report exactly the registers that changed and leave the
//   neighbours' shadows alone, also when a row it reads into is not
//   zeroed first (registers Unicorn stores whole).
#include <doctest/doctest.h>
#include <unicorn/unicorn.h>

#include <map>
#include <string>
#include <vector>

#include "formats/ucir/ucir_writer.h"
#include "tests/recorder/recording_support.h"
#include "tools/recorder/guest_arch.h"
#include "tools/recorder/register_tracker.h"

using namespace ttd;
using namespace ttd::rec;
using ttd::rec::test::file_text;
using ttd::rec::test::TempDir;

namespace {

uint16_t reg_index(const char* name) {
  const ArchDesc& arch = arch_desc(ArchId::X86_64);
  for (uint16_t i = 0; i < arch.regs.size(); ++i)
    if (arch.regs[i].name == name) return i;
  FAIL("no register " << name);
  return 0;
}

// One sequence of ops, through the inline calls or the virtual ones.
void write_ops(fmt::UcirWriter& w, bool inline_ops) {
  const uint8_t v8[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  const uint8_t v2[2] = {0x7f, 0x03};
  const uint8_t wide[16] = {0xaa, 0xbb, 0xcc, 0xdd, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  auto step = [&](uint8_t n) { inline_ops ? w.step_inline(n) : w.step(n); };
  auto reg = [&](const char* name, std::span<const uint8_t> v) {
    inline_ops ? w.reg_inline(reg_index(name), v) : w.reg(reg_index(name), v);
  };
  auto read = [&](uint64_t a, uint32_t n) { inline_ops ? w.mem_read_inline(a, n) : w.mem_read(a, n); };
  auto write = [&](uint64_t a, std::span<const uint8_t> b) {
    inline_ops ? w.mem_write_inline(a, b.data(), uint32_t(b.size())) : w.mem_write(a, b);
  };

  // Before any frame: the ops open one.
  reg("rax", v8);
  read(0x1000, 8);
  write(0x2000, {v8, 3});
  step(3);
  w.begin_keyframe();
  reg("rbx", v8);
  write(0x3000, {v8, 8});
  w.end_keyframe();
  w.begin_frame();
  w.jmp(0x401000, 20);
  read(0x1008, 4);
  write(0x2008, {v8, 8});
  write(0x2010, {v8, 0});  // nothing to write: no op
  reg("rip", v8);          // UCIR's pc is in jmp/step: left out
  reg("orig_rax", v8);     // no UCIR number: dropped
  reg("xmm0", wide);       // wider than 8 bytes: OP_SPREG
  reg("fstat", v2);        // narrower than 8 bytes
  step(2);
  w.begin_syscall(1, 5, std::vector<uint64_t>{1, 2, 3});
  reg("rax", v8);  // inside the syscall: counted there
  read(0x1010, 8);
  write(0x2018, {v8, 4});
  step(2);  // ends the syscall
  w.begin_frame();
  w.jmp(0x402000, 4);
  // Past the 1 MiB frame split.
  for (int i = 0; i < 90000; ++i) {
    reg("rcx", v8);
    step(1);
  }
  w.set_thread(2);
  reg("rdx", v8);
  step(4);
}

}  // namespace

TEST_CASE("UcirWriter's inline ops write the bytes its virtual ops write") {
  TempDir dir("ttd-fast-paths");
  const std::string a = dir.file("virtual.ucir"), b = dir.file("inline.ucir");
  uint64_t dropped[2] = {};
  int k = 0;
  for (const auto& [path, inline_ops] : {std::pair{a, false}, std::pair{b, true}}) {
    auto w = fmt::UcirWriter::create(path, ArchId::X86_64, "linux", true);
    REQUIRE(w.ok());
    write_ops(**w, inline_ops);
    REQUIRE((*w)->close().ok());
    dropped[k++] = (*w)->dropped_registers();
  }
  const std::string va = file_text(a), vb = file_text(b);
  CHECK(va.size() > 1000);
  CHECK(va == vb);
  CHECK(dropped[0] == 1);
  CHECK(dropped[1] == 1);
}

TEST_CASE("register tracker: narrow registers side by side are compared exactly, fast path and full compare") {
  uc_engine* uc = nullptr;
  REQUIRE(uc_open(UC_ARCH_X86, UC_MODE_64, &uc) == UC_ERR_OK);
  auto guest = guest_arch(ArchId::X86_64);
  REQUIRE(guest.ok());
  REQUIRE(uc_mem_map(uc, 0x10000, 0x1000, UC_PROT_ALL) == UC_ERR_OK);
  const uint8_t fnop[] = {0xd9, 0xd0};  // an x87 instruction: every x87 register is in its set
  REQUIRE(uc_mem_write(uc, 0x10000, fnop, sizeof fnop) == UC_ERR_OK);
  {
    const ArchDesc& arch = arch_desc(ArchId::X86_64);
    // Non-zero neighbours, so a store wider than a slot or a compare that
    // reads into the next slot shows.
    const uint64_t fstat0 = 0x4000, fooff0 = 0x12345678;
    REQUIRE(uc_reg_write(uc, UC_X86_REG_FPSW, &fstat0) == UC_ERR_OK);
    REQUIRE(uc_reg_write(uc, UC_X86_REG_FDP, &fooff0) == UC_ERR_OK);
    RegisterTracker t;
    REQUIRE(t.init(uc, arch, **guest));
    t.load_all();
    std::map<std::string, std::vector<uint8_t>> seen;
    auto emit = [&](uint16_t index, std::span<const uint8_t> v) {
      seen[arch.regs[index].name] = std::vector<uint8_t>(v.begin(), v.end());
    };
    InsnInfo& info = t.lookup(0x10000);
    t.diff(info, emit);  // learns (full compare): nothing changed
    CHECK(seen.empty());
    REQUIRE(info.learned);

    // Fast path (one batch read): fctrl and fop change, their neighbours
    // fstat, ftag and fooff do not.
    const uint64_t fctrl = 0x027f, fop = 0x01d9;
    REQUIRE(uc_reg_write(uc, UC_X86_REG_FPCW, &fctrl) == UC_ERR_OK);
    REQUIRE(uc_reg_write(uc, UC_X86_REG_FOP, &fop) == UC_ERR_OK);
    t.diff(info, emit);
    CHECK(seen.size() == 2);
    CHECK(seen["fctrl"] == std::vector<uint8_t>{0x7f, 0x02, 0, 0});
    CHECK(seen["fop"] == std::vector<uint8_t>{0xd9, 0x01, 0, 0});
    seen.clear();
    t.diff(info, emit);  // the shadows now match, neighbours included
    CHECK(seen.empty());

    // Full compare: a change to the last register of the table (the
    // shadow's slack follows it) and to a narrow one.
    const uint64_t gs_base = 0x1122334455667788ull, fstat = 0x3800;
    REQUIRE(uc_reg_write(uc, UC_X86_REG_GS_BASE, &gs_base) == UC_ERR_OK);
    REQUIRE(uc_reg_write(uc, UC_X86_REG_FPSW, &fstat) == UC_ERR_OK);
    t.diff_all(nullptr, emit);
    CHECK(seen.size() == 2);
    CHECK(seen["gs_base"] == std::vector<uint8_t>{0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11});
    CHECK(seen["fstat"] == std::vector<uint8_t>{0x00, 0x38, 0, 0});
    seen.clear();
    t.diff_all(nullptr, emit);
    CHECK(seen.empty());
  }
  uc_close(uc);
}

TEST_CASE("register tracker: rows are zeroed only for registers Unicorn reads in full, and compares stay exact") {
  uc_engine* uc = nullptr;
  REQUIRE(uc_open(UC_ARCH_X86, UC_MODE_64, &uc) == UC_ERR_OK);
  auto guest = guest_arch(ArchId::X86_64);
  REQUIRE(guest.ok());
  {
    const ArchDesc& arch = arch_desc(ArchId::X86_64);
    RegisterTracker t;
    REQUIRE(t.init(uc, arch, **guest));
    t.load_all();
    auto slot = [&](const char* name) -> uint16_t {
      for (uint16_t s = 0; s < t.regs().size(); ++s)
        if (arch.regs[t.regs()[s].index].name == name) return s;
      FAIL("no slot for " << name);
      return 0;
    };
    // A 64-bit register is stored whole; fctrl and fop are 2 bytes of value
    // in 4-byte slots (Unicorn stores 2): those rows must still be zeroed.
    CHECK(t.regs()[slot("rax")].read_fills);
    CHECK(t.regs()[slot("rcx")].read_fills);
    CHECK_FALSE(t.regs()[slot("fctrl")].read_fills);
    CHECK_FALSE(t.regs()[slot("fop")].read_fills);

    std::map<std::string, std::vector<uint8_t>> seen;
    auto emit = [&](uint16_t index, std::span<const uint8_t> v) {
      seen[arch.regs[index].name] = std::vector<uint8_t>(v.begin(), v.end());
    };
    // Instructions built by hand (learned, their register sets given) so
    // the batch rows line up: first all-ones GPRs fill rows 0-3 ...
    InsnInfo gprs, x87;
    gprs.learned = x87.learned = true;
    for (const char* n : {"rax", "rcx", "rdx", "rbx"}) gprs.slots.push_back(slot(n), t.regs()[slot(n)].uc_id);
    for (const char* n : {"fctrl", "fop", "fstat", "rsi"}) x87.slots.push_back(slot(n), t.regs()[slot(n)].uc_id);
    const uint64_t ones = ~0ull;
    for (int id : {UC_X86_REG_RAX, UC_X86_REG_RCX, UC_X86_REG_RDX, UC_X86_REG_RBX})
      REQUIRE(uc_reg_write(uc, id, &ones) == UC_ERR_OK);
    t.diff(gprs, emit);
    CHECK(seen.size() == 4);
    CHECK(seen["rbx"] == std::vector<uint8_t>(8, 0xff));
    seen.clear();
    // ... then narrow registers read into those rows: no byte of the
    // earlier values may show, and a filled row's old bytes are overwritten.
    const uint64_t fctrl = 0x027f, fop = 0x01d9, rsi = 0x1234;
    REQUIRE(uc_reg_write(uc, UC_X86_REG_FPCW, &fctrl) == UC_ERR_OK);
    REQUIRE(uc_reg_write(uc, UC_X86_REG_FOP, &fop) == UC_ERR_OK);
    REQUIRE(uc_reg_write(uc, UC_X86_REG_RSI, &rsi) == UC_ERR_OK);
    t.diff(x87, emit);
    CHECK(seen.size() == 3);
    CHECK(seen["fctrl"] == std::vector<uint8_t>{0x7f, 0x02, 0, 0});
    CHECK(seen["fop"] == std::vector<uint8_t>{0xd9, 0x01, 0, 0});
    CHECK(seen["rsi"] == std::vector<uint8_t>{0x34, 0x12, 0, 0, 0, 0, 0, 0});
    seen.clear();
    t.diff(x87, emit);
    t.diff(gprs, emit);
    CHECK(seen.empty());
    // An instruction that writes no register reads nothing and reports nothing.
    InsnInfo none;
    none.learned = true;
    t.diff(none, emit);
    CHECK(seen.empty());
  }
  uc_close(uc);
}
