// Memory reads that fall back on the traced program's code bytes.
//
// A trace may not hold the bytes of the code it ran (TT6 none, FULL few,
// Tenet none); a debugger still reads them, to disassemble and, on
// PowerPC, before every single step (gdb looks for lwarx/stwcx. sequences
// and gives up the step when the read fails). The program's ELF
// (Trace::program()) holds them, and its bytes are what memory held as
// long as nothing wrote there: a byte is taken from the file only inside
// an executable segment's file bytes, and only when no traced step wrote
// any byte of its unknown run before `eid` (a store into code, or a TT6
// store, which makes the bytes unknown, would leave the file's bytes
// stale). A write before the trace began is not visible here: the trace
// cannot say, and text is not written by the programs this serves.
#pragma once
#include <cstddef>
#include <cstdint>

namespace ttd {
class Trace;
}

namespace ttd::query {


// Fills bytes of [addr, addr + len) whose known[i] is 0 where the rule
// above allows, setting known[i] for each; returns how many it filled.
// pid names the process whose writes count. Without a program, 0.
size_t fill_code_from_program(const Trace& t, uint64_t eid, uint64_t pid, uint64_t addr, uint8_t* data,
                              uint8_t* known, size_t len);

}  // namespace ttd::query
