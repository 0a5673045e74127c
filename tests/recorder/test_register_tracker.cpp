// RegisterTracker's decode cache: an instruction's register set is decoded
// once per pc and kept until the code there may have changed; invalidate()
// drops only the decodes in the range a syscall unmapped, replaced or
// re-protected.
#include <doctest/doctest.h>
#include <unicorn/unicorn.h>

#include <algorithm>

#include "tools/recorder/guest_arch.h"
#include "tools/recorder/register_tracker.h"

using namespace ttd;
using namespace ttd::rec;

namespace {

bool writes(const RegisterTracker& t, const InsnInfo& info, const std::string& name) {
  const ArchDesc& arch = arch_desc(ArchId::X86_64);
  return std::any_of(info.slots.begin(), info.slots.end(),
                     [&](uint16_t s) { return arch.regs[t.regs()[s].index].name == name; });
}

}  // namespace

TEST_CASE("register tracker: invalidate(range) re-decodes code there and keeps the rest") {
  uc_engine* uc = nullptr;
  REQUIRE(uc_open(UC_ARCH_X86, UC_MODE_64, &uc) == UC_ERR_OK);
  auto guest = guest_arch(ArchId::X86_64);
  REQUIRE(guest.ok());
  REQUIRE(uc_mem_map(uc, 0x10000, 0x3000, UC_PROT_ALL) == UC_ERR_OK);
  const uint8_t mov_rax[] = {0x48, 0xc7, 0xc0, 0x01, 0, 0, 0};  // mov rax, 1
  const uint8_t mov_rbx[] = {0x48, 0xc7, 0xc3, 0x01, 0, 0, 0};  // mov rbx, 1
  REQUIRE(uc_mem_write(uc, 0x10000, mov_rax, sizeof mov_rax) == UC_ERR_OK);
  REQUIRE(uc_mem_write(uc, 0x12000, mov_rax, sizeof mov_rax) == UC_ERR_OK);
  {
    RegisterTracker t;
    REQUIRE(t.init(uc, arch_desc(ArchId::X86_64), **guest));
    InsnInfo* first = &t.lookup(0x10000, sizeof mov_rax);
    InsnInfo* other = &t.lookup(0x12000, sizeof mov_rax);
    CHECK(writes(t, *first, "rax"));

    // The code at 0x10000 changes (a new mapping there, say).
    REQUIRE(uc_mem_write(uc, 0x10000, mov_rbx, sizeof mov_rbx) == UC_ERR_OK);
    t.invalidate(0x11000, 0x12000);  // a range without decoded code: nothing dropped
    CHECK(&t.lookup(0x10000, sizeof mov_rbx) == first);
    CHECK(writes(t, t.lookup(0x10000, sizeof mov_rbx), "rax"));

    t.invalidate(0x10000, 0x11000);
    InsnInfo& again = t.lookup(0x10000, sizeof mov_rbx);
    CHECK(writes(t, again, "rbx"));
    CHECK_FALSE(writes(t, again, "rax"));
    CHECK(&t.lookup(0x12000, sizeof mov_rax) == other);  // outside the range: kept

    // A range that starts inside an instruction drops it too.
    t.invalidate(0x12003, 0x12004);
    CHECK(writes(t, t.lookup(0x12000, sizeof mov_rax), "rax"));
  }
  uc_close(uc);
}
