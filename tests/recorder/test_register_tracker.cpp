// RegisterTracker's decode cache: an instruction's register set is decoded
// once per pc and kept until the code there may have changed; invalidate()
// drops only the decodes in the range a syscall unmapped, replaced or
// re-protected.
#include <doctest/doctest.h>
#include <unicorn/unicorn.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <string>

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
    InsnInfo* first = &t.lookup(0x10000);
    InsnInfo* other = &t.lookup(0x12000);
    CHECK(writes(t, *first, "rax"));

    // The code at 0x10000 changes (a new mapping there, say).
    REQUIRE(uc_mem_write(uc, 0x10000, mov_rbx, sizeof mov_rbx) == UC_ERR_OK);
    t.invalidate(0x11000, 0x12000);  // a range without decoded code: nothing dropped
    CHECK(&t.lookup(0x10000) == first);
    CHECK(writes(t, t.lookup(0x10000), "rax"));

    t.invalidate(0x10000, 0x11000);
    InsnInfo& again = t.lookup(0x10000);
    CHECK(writes(t, again, "rbx"));
    CHECK_FALSE(writes(t, again, "rax"));
    CHECK(&t.lookup(0x12000) == other);  // outside the range: kept

    // A range that starts inside an instruction drops it too.
    t.invalidate(0x12003, 0x12004);
    CHECK(writes(t, t.lookup(0x12000), "rax"));
  }
  uc_close(uc);
}

TEST_CASE("register tracker: a register set longer than the inline room moves to the heap whole") {
  SlotSet set;
  for (uint16_t s = 0; s < 10; ++s) set.push_back(uint16_t(100 + s), 1000 + s);
  REQUIRE(set.size() == 10);
  for (uint16_t s = 0; s < 10; ++s) {
    CHECK(set[s] == 100 + s);
    CHECK(set.uc_ids()[s] == 1000 + s);
  }
  CHECK(set.contains(100));  // one of the inline ones, moved
  CHECK(set.contains(109));
  CHECK_FALSE(set.contains(99));
}

TEST_CASE("register tracker: an instruction that learned more registers than fit inline reports them all") {
  uc_engine* uc = nullptr;
  REQUIRE(uc_open(UC_ARCH_X86, UC_MODE_64, &uc) == UC_ERR_OK);
  auto guest = guest_arch(ArchId::X86_64);
  REQUIRE(guest.ok());
  REQUIRE(uc_mem_map(uc, 0x10000, 0x1000, UC_PROT_ALL) == UC_ERR_OK);
  const uint8_t nop[] = {0x90};
  REQUIRE(uc_mem_write(uc, 0x10000, nop, sizeof nop) == UC_ERR_OK);
  const ArchDesc& arch = arch_desc(ArchId::X86_64);
  const int ids[] = {UC_X86_REG_RBX, UC_X86_REG_RCX, UC_X86_REG_RDX, UC_X86_REG_RSI, UC_X86_REG_RDI,
                     UC_X86_REG_R8,  UC_X86_REG_R9,  UC_X86_REG_R10, UC_X86_REG_R11};
  const char* names[] = {"rbx", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11"};
  constexpr size_t kCount = sizeof ids / sizeof ids[0];
  static_assert(kCount > SlotSet::kInline);
  {
    RegisterTracker t;
    REQUIRE(t.init(uc, arch, **guest));
    t.load_all();
    std::map<std::string, uint64_t> seen;
    auto emit = [&](uint16_t index, std::span<const uint8_t> v) {
      uint64_t x = 0;
      std::memcpy(&x, v.data(), std::min<size_t>(v.size(), 8));
      seen[arch.regs[index].name] = x;
    };
    auto set_all = [&](uint64_t base) {
      for (size_t i = 0; i < kCount; ++i) {
        const uint64_t v = base + i;
        REQUIRE(uc_reg_write(uc, ids[i], &v) == UC_ERR_OK);
      }
    };
    // A nop writes nothing Capstone knows of; its first run "changes" nine
    // registers (as if Capstone had missed them), so it learns all nine.
    InsnInfo& info = t.lookup(0x10000);
    set_all(0x100);
    t.diff(info, emit);
    REQUIRE(info.learned);
    CHECK(info.slots.size() == kCount);
    CHECK(seen.size() == kCount);
    // The fast path (one batch read of the learned set, now on the heap).
    seen.clear();
    set_all(0x200);
    t.diff(info, emit);
    REQUIRE(seen.size() == kCount);
    for (size_t i = 0; i < kCount; ++i) CHECK(seen[names[i]] == 0x200 + i);
    seen.clear();
    t.diff(info, emit);
    CHECK(seen.empty());
  }
  uc_close(uc);
}
