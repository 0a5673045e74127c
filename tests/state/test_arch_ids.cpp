// The Unicorn / Capstone ids in the tables are checked against the real
// libraries: each arch's uc_mode/cs_mode must open, every unicorn_id must be
// readable on that engine, and every capstone_id must have a name.
#include <capstone/capstone.h>
#include <doctest/doctest.h>
#include <unicorn/unicorn.h>

#include <cstring>

#include "state/arch.h"

using namespace ttd;

TEST_CASE("Unicorn accepts each arch's mode and register ids") {
  for (ArchId id : all_arches()) {
    const ArchDesc& a = arch_desc(id);
    CAPTURE(a.name);
    uc_engine* uc = nullptr;
    uc_err err = uc_open(uc_arch(a.uc_arch), uc_mode(a.uc_mode), &uc);
    REQUIRE(err == UC_ERR_OK);
    for (const RegisterDesc& r : a.regs) {
      if (r.unicorn_id < 0) continue;
      CAPTURE(r.name);
      uint8_t buf[64];
      std::memset(buf, 0, sizeof buf);
      CHECK(uc_reg_read(uc, r.unicorn_id, buf) == UC_ERR_OK);
    }
    uc_close(uc);
    // The pc always has a Unicorn id: replay and the recorder need it.
    CHECK(a.pc().unicorn_id >= 0);
    CHECK(a.sp().unicorn_id >= 0);
  }
}

TEST_CASE("Unicorn's pc round-trips through the id in the table") {
  for (ArchId id : all_arches()) {
    const ArchDesc& a = arch_desc(id);
    CAPTURE(a.name);
    uc_engine* uc = nullptr;
    REQUIRE(uc_open(uc_arch(a.uc_arch), uc_mode(a.uc_mode), &uc) == UC_ERR_OK);
    uint64_t v = 0x1000, back = 0;
    REQUIRE(uc_reg_write(uc, a.pc().unicorn_id, &v) == UC_ERR_OK);
    REQUIRE(uc_reg_read(uc, a.pc().unicorn_id, &back) == UC_ERR_OK);
    if (a.ptr_size == 4) back &= 0xffffffffu;
    CHECK(back == v);
    uc_close(uc);
  }
}

TEST_CASE("Capstone accepts each arch's mode and names every register id") {
  for (ArchId id : all_arches()) {
    const ArchDesc& a = arch_desc(id);
    CAPTURE(a.name);
    csh cs = 0;
    REQUIRE(cs_open(cs_arch(a.cs_arch), cs_mode(unsigned(a.cs_mode)), &cs) == CS_ERR_OK);
    for (const RegisterDesc& r : a.regs) {
      if (r.capstone_id < 0) continue;
      CAPTURE(r.name);
      const char* n = cs_reg_name(cs, unsigned(r.capstone_id));
      REQUIRE(n != nullptr);
      CHECK(std::strlen(n) > 0);
    }
    cs_close(&cs);
  }
}

TEST_CASE("Capstone ids name the same registers as gdb") {
  // Spot checks where Capstone's spelling equals gdb's, catching off-by-one
  // enum mistakes in the sequences.
  struct Case { ArchId arch; const char* name; };
  const Case cases[] = {{ArchId::X86_64, "rax"},  {ArchId::X86_64, "r15"},  {ArchId::X86_64, "xmm15"},
                        {ArchId::X86_64, "rip"},  {ArchId::I386, "edi"},    {ArchId::I386, "xmm7"},
                        {ArchId::AArch64, "x28"}, {ArchId::AArch64, "x29"}, {ArchId::AArch64, "v31"},
                        {ArchId::Arm, "r8"},     {ArchId::Arm, "d31"},     {ArchId::Ppc32, "r31"},
                        {ArchId::Ppc32, "f31"},   {ArchId::Ppc32, "lr"},    {ArchId::Mips, "f31"}};
  for (const Case& c : cases) {
    const ArchDesc& a = arch_desc(c.arch);
    CAPTURE(a.name);
    std::string cname = c.name;
    CAPTURE(cname);
    csh cs = 0;
    REQUIRE(cs_open(cs_arch(a.cs_arch), cs_mode(unsigned(a.cs_mode)), &cs) == CS_ERR_OK);
    auto idx = a.find(c.name);
    REQUIRE(idx);
    const char* n = cs_reg_name(cs, unsigned(a.regs[*idx].capstone_id));
    REQUIRE(n);
    // Capstone prints ppc registers without the letter prefix ("31" for r31)
    // in some versions; compare the numeric tail when lengths differ.
    std::string want = c.name, got = n;
    if (a.id == ArchId::Ppc32 && got != want) CHECK(want.substr(want.size() - got.size()) == got);
    else CHECK(got == want);
    cs_close(&cs);
  }
}
