// The order in which the loader maps a process into Unicorn. Unicorn 2.0.1
// gives RAM offsets in the order of uc_mem_map calls, and every guest store
// is slower when its page shares a 4 MiB window of those offsets with
// translated code (docs/performance.md, "Recorder speed, session 13"): the
// stack, mapped first, gets offsets [0, 8 MiB) to itself. The guest's
// addresses, and so the trace, are the same in any order.
#include <doctest/doctest.h>
#include <unicorn/unicorn.h>

#include "tools/recorder/elf_image.h"
#include "tools/recorder/guest_arch.h"
#include "tools/recorder/guest_memory.h"
#include "tools/recorder/process_loader.h"

using namespace ttd;
using namespace ttd::rec;

namespace {

void check_stack_first(const char* program) {
  INFO(program);
  auto elf = load_elf(program);
  REQUIRE(elf.ok());
  auto guest = guest_arch(ArchId::X86_64);
  REQUIRE(guest.ok());
  uc_engine* uc = nullptr;
  REQUIRE(uc_open(UC_ARCH_X86, UC_MODE_64, &uc) == UC_ERR_OK);
  {
    GuestMemory mem(uc, 4096);
    auto proc = load_process(uc, mem, **guest, *elf, {program}, {}, program);
    REQUIRE(proc.ok());
    const uint64_t stack_start = (*guest)->stack_top() - (8ull << 20);
    REQUIRE(mem.first_mapped().has_value());
    CHECK(*mem.first_mapped() == stack_start);
    const MemoryRegion* stack = mem.regions().find(stack_start);
    REQUIRE(stack != nullptr);
    CHECK(stack->name == "[stack]");
    CHECK(stack->size == (8ull << 20));
    CHECK(proc->sp > stack_start);
    CHECK(proc->sp < (*guest)->stack_top());
  }
  uc_close(uc);
}

}  // namespace

TEST_CASE("loader: the stack is the first mapping in Unicorn, before the program and its interpreter") {
  check_stack_first(TTD_EXAMPLES_DIR "/x86_64/loop");  // static
  check_stack_first("/usr/bin/gzip");                  // dynamic: ld.so is mapped too
}
