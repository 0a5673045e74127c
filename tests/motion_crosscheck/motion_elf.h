// The motion program's code as a static ELF with a symbol table (main, f,
// g as functions): gdb and lldb need the function starts to step over and
// out of calls and to run reverse-finish, and a .debug_frame (motion_cfi.h;
// x86-64 and aarch64) for lldb and gdb to unwind with. ELF32 big-endian
// for ppc32, ELF64 little-endian otherwise; code at kMotionCode, one
// PT_LOAD segment and a .text section. (tests/engine's write_motion_elf has no symbols:
// the engine's classifier needs only the code bytes.)
#pragma once
#include <string>

#include "motion_program.h"
#include "state/error.h"

namespace ttd::test {

Status write_motion_elf_with_symbols(const MotionProgram& p, const std::string& path);

}  // namespace ttd::test
