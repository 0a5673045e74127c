// The architectures Tenet traces come in, told apart by register names
// (Tenet itself takes the arch from the user; its text format names none),
// and the register set Tenet's plugin tracks for each
// (tenet/plugins/tenet/trace/arch/*.py).
#pragma once
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "state/arch.h"

namespace ttd::fmt::tenet {

// Deduces the architecture from the register names of a trace's first line
// (lowercase): rip/rax.. -> x86_64, eip/eax.. -> i386, x0..x30 -> aarch64,
// nip/msr/cr/ctr/xer/fpscr or r16..r31 -> ppc32 (ttd's extension, what
// `ttd convert --to tenet` writes for PowerPC), r0..r12/sp/lr/pc/cpsr ->
// arm. nullopt when nothing is recognisable.
std::optional<ArchId> detect_arch(std::span<const std::string> lowercase_names);

// The registers Tenet's plugin keeps for this arch, lowercase, including the
// instruction pointer; empty for arches Tenet has no definition for.
std::span<const std::string_view> tenet_register_set(ArchId arch);

}  // namespace ttd::fmt::tenet
