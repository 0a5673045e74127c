// A UCIR trace of a small x86-64 program with real code bytes, for call
// queries (and their benchmark): main calls f in a loop, f calls g, both
// return a value in eax. Written with the project's UCIR writer, so it is
// read back by the real reader and indexed like a recorded trace.
//
//   0x400000 main: call f            e8 fb 00 00 00
//   0x400005       jmp main          eb f9
//   0x400100 f:    mov eax, 0x11     b8 11 00 00 00
//   0x400105       call g            e8 f6 00 00 00
//   0x40010a       ret               c3
//   0x400200 g:    mov eax, 7        b8 07 00 00 00
//   0x400205       ret               c3
//
//   0x400300       nop sled (spin steps per iteration, after the jmp)
//
// One iteration is 7 + spin steps and 2 calls; every call returns (f returns 7,
// the value g left in eax). The stack pointer starts at 0x7ff000.
#pragma once
#include <cstdint>
#include <string>

#include "state/error.h"

namespace ttd::test {

struct CallProgramOptions {
  uint64_t iterations = 10;
  // false: the code pages are not in the trace at all, so calls must be
  // found by the pc/sp heuristics.
  bool with_code = true;
  // nops run per iteration (at most 3000): long call-free stretches that
  // the call query should skip by chunk summaries.
  uint64_t spin = 0;
};

constexpr uint64_t kMain = 0x400000, kF = 0x400100, kG = 0x400200, kSled = 0x400300, kStackTop = 0x7ff000;

Status write_call_program(const std::string& path, const CallProgramOptions& o);

}  // namespace ttd::test
