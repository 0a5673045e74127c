// A synthetic UCIR trace that puts every kind of op on and around any cut
// a segmented read or a chunk boundary may make: memory reads and writes,
// register changes, jumps, frames (every 11 steps), syscalls attached to
// their step, exit syscalls (the thread ends and begins again), mappings
// made and removed, a keyframe halfway, and (optionally) steps of a
// second thread at the end and effects after the last step. Shared by the
// segmented-read tests (tests/formats_ucir) and the parallel-parse build
// tests (tests/engine), which compare a cut read or build with a whole one.
#pragma once
#include <doctest/doctest.h>

#include <cstdint>
#include <string>

#include "formats/ucir/ucir_writer.h"
#include "state/arch.h"

namespace ttd::test {

struct BusyUcirTrace {
  uint32_t steps = 0;
  uint64_t stack = 0x7f0000, stack_size = 0x10000;  // where reads and writes go
  uint64_t write_stride = 40;                       // bytes between step i's and i+1's write slots
  bool second_thread = false;                       // the last 5 steps are thread 2's
  bool trailing_effects = true;                     // a register change after the last step
};

inline void write_busy_ucir_trace(const std::string& path, const BusyUcirTrace& t) {
  auto R = [](const char* name) { return *arch_desc(ArchId::X86_64).find(name); };
  auto w = fmt::UcirWriter::create(path, ArchId::X86_64).value();
  w->begin_keyframe();
  w->reg_u64(R("rax"), 7);
  w->reg_u64(R("rsp"), 0x7ff000);
  w->mem_map(0x400000, 0x1000, 5, "exe");
  w->mem_map(t.stack, t.stack_size, 3, "stack");
  w->jmp(0x400000, 16);
  w->end_keyframe();
  for (uint32_t i = 0; i < t.steps; ++i) {
    if (i % 11 == 0) w->begin_frame();
    if (i % 9 == 4) w->jmp(0x400000 + (i % 64) * 4, 16);
    if (i % 3 == 0) w->mem_read(t.stack + (i * 8) % t.stack_size, 8);
    if (i % 5 == 1) {
      const uint8_t v[8] = {uint8_t(i), uint8_t(i >> 8), 1, 2, 3, 4, 5, 6};
      w->mem_write(t.stack + (i * t.write_stride) % t.stack_size, v);
    }
    w->reg_u64(R("rax"), i);
    if (i % 4 == 0) w->reg_u64(R("rcx"), i * 3);
    w->step(i % 7 == 0 ? 2 : 4);
    if (i % 13 == 6 && i > 20) {
      const uint64_t args[] = {1, 0x7ff000, i};
      w->begin_syscall(1, i, args);
      w->mem_read(0x7ff000, 4);
      w->reg_u64(R("rax"), i);
      w->end_syscall();
    }
    if (i % 29 == 17) {
      const uint64_t args[] = {0};
      w->begin_syscall(60, 0, args);
      w->exit();
      w->end_syscall();
    }
    if (i % 31 == 30) {
      w->mem_map(0x900000, 0x1000, 3, "anon");
      w->mem_protect(0x900000, 0x1000, 1);
      w->mem_unmap(0x900000, 0x1000);
    }
    if (i == t.steps / 2) {
      w->begin_keyframe();
      w->reg_u64(R("rax"), 1);
      w->end_keyframe();
    }
    if (t.second_thread && i + 5 == t.steps) w->set_thread(2);
  }
  if (t.trailing_effects) w->reg_u64(R("rdx"), 99);
  REQUIRE(w->close());
}

}  // namespace ttd::test
