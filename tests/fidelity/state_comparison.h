// Compares one native machine state (ptrace) with the state the engine
// reconstructs from a recording at the same EID, and names the first
// difference: EID, register or address, both values.
//
// Compared: rip, the 16 general registers, EFLAGS (CF PF AF ZF SF OF, DF,
// IF; minus the flags an earlier instruction left architecturally
// undefined), x87 fctrl, fstat, the tag word (as FXSAVE's abridged form: empty or
// not per physical register), st0-st7, xmm0-xmm15 and mxcsr. A register the
// recording does not know (unavailable) is a difference too.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "state/arch.h"
#include "state/paged_memory.h"
#include "state/register_file.h"
#include "tests/fidelity/native_process.h"

namespace ttd::fidelity {

struct Difference {
  uint64_t eid = 0;
  std::string what;  // register name or "memory 0x..."
  std::string native, recorded;
  std::string to_string() const;
};

// The EFLAGS bits compared: CF PF AF ZF SF DF OF and IF (TF and RF are the
// debugger's, the rest constant in user mode).
constexpr uint64_t kComparedFlags = 0xed5;

struct RegisterCheck {
  bool skip_sp = false;          // at EID 0 rsp is wherever the kernel put the stack
  uint64_t undefined_flags = 0;  // EFLAGS bits left out (undefined_flags.h)
};

std::optional<Difference> compare_registers(uint64_t eid, const NativeState& native, const ArchDesc& arch,
                                            const RegisterFile& recorded, const RegisterCheck& check,
                                            uint64_t& comparisons);

// `native` holds the bytes at addr; every byte must be known and equal.
std::optional<Difference> compare_memory(uint64_t eid, uint64_t addr, std::span<const uint8_t> native,
                                         const PagedMemory& recorded, uint64_t& comparisons);

}  // namespace ttd::fidelity
