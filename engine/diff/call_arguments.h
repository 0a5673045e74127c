// Argument registers of the calls of an instruction trace, for the call
// diff. The values are those the registers hold before the call
// instruction runs, which are those at the callee's first step (a call
// writes the stack or the link register, never an argument register).
// Per architecture (its C calling convention's integer argument registers):
//   x86-64 (SysV)   rdi, rsi, rdx, rcx, r8, r9
//   aarch64 (AAPCS64) x0-x7
//   arm (AAPCS)     r0-r3
//   mips (o32)      a0-a3
//   ppc32 (SysV)    r3-r10
//   x86 (cdecl)     none: arguments are on the stack, whose extent the
//                   trace does not say
// The trace does not say how many arguments a function takes, so every
// argument register is read; a register the function does not use may
// differ between runs without meaning anything (docs/queries.md).
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "engine/trace.h"

namespace ttd::diff {

// Indexes into the arch's register table, in argument order.
std::vector<uint16_t> argument_registers(const ArchDesc& arch);

struct CallArguments {
  std::vector<std::optional<uint64_t>> values;  // per argument register; nullopt: unknown
};

// The argument registers at each of `entry_eids` (call instructions), of
// the thread that runs the step there, keyed by EID. The EIDs are
// visited in increasing order with one cursor (a forward replay between
// near EIDs, a keyframe for far ones).
Result<std::unordered_map<uint64_t, CallArguments>> read_call_arguments(std::shared_ptr<const Trace> t,
                                                                       std::vector<uint64_t> entry_eids,
                                                                       const std::function<bool()>& cancel = {});

}  // namespace ttd::diff
