#include "formats/tenet/tenet_arch.h"

#include <algorithm>

namespace ttd::fmt::tenet {

namespace {

constexpr std::string_view kAmd64[] = {"rax", "rbx", "rcx", "rdx", "rbp", "rsp", "rsi", "rdi", "r8",
                                       "r9",  "r10", "r11", "r12", "r13", "r14", "r15", "rip"};
constexpr std::string_view kX86[] = {"eax", "ebx", "ecx", "edx", "ebp", "esp", "esi", "edi", "eip"};
constexpr std::string_view kArm32[] = {"r0", "r1", "r2",  "r3",  "r4",  "r5", "r6", "r7",
                                       "r8", "r9", "r10", "r11", "r12", "sp", "lr", "pc"};

// Names that only one architecture uses. r8..r15 exist on both x86-64 and
// arm, and sp/pc are aliases everywhere, so those decide only last.
constexpr std::string_view kOnlyAmd64[] = {"rip", "rax", "rbx", "rcx", "rdx", "rbp", "rsp", "rsi", "rdi"};
constexpr std::string_view kOnlyX86[] = {"eip", "eax", "ebx", "ecx", "edx", "ebp", "esp", "esi", "edi"};
// PowerPC (ttd's extension: Tenet's plugin has no PowerPC definition;
// `ttd convert --to tenet` writes gdb's ppc32 names): registers arm has
// no name for, and nip (the pc's name in Linux's ptrace), which the
// writer uses for PowerPC's pc so that a line of a trace without register
// values still names the architecture.
constexpr std::string_view kOnlyPpc[] = {"nip", "msr", "cr", "ctr", "xer", "fpscr"};
constexpr std::string_view kArmish[] = {"r0", "r1",  "r2",  "r3", "r4", "r5", "r6",  "r7",  "r8",
                                        "r9", "r10", "r11", "r12", "sp", "lr", "pc", "cpsr"};

bool any_of(std::span<const std::string> names, std::span<const std::string_view> set) {
  return std::any_of(names.begin(), names.end(), [&](const std::string& n) {
    return std::find(set.begin(), set.end(), std::string_view(n)) != set.end();
  });
}

bool is_aarch64_x(const std::string& n) {
  if (n.size() < 2 || n.size() > 3 || n[0] != 'x') return false;
  for (size_t i = 1; i < n.size(); ++i)
    if (n[i] < '0' || n[i] > '9') return false;
  int v = std::stoi(n.substr(1));
  return v <= 30;
}

// r16..r31: PowerPC's (arm stops at r15, x86-64 at r15).
bool is_ppc_high_r(const std::string& n) {
  if (n.size() != 3 || n[0] != 'r' || n[1] < '1' || n[1] > '3' || n[2] < '0' || n[2] > '9') return false;
  const int v = (n[1] - '0') * 10 + (n[2] - '0');
  return v >= 16 && v <= 31;
}

}  // namespace

std::optional<ArchId> detect_arch(std::span<const std::string> names) {
  if (any_of(names, kOnlyAmd64)) return ArchId::X86_64;
  if (any_of(names, kOnlyX86)) return ArchId::I386;
  if (std::any_of(names.begin(), names.end(), is_aarch64_x)) return ArchId::AArch64;
  if (any_of(names, kOnlyPpc) || std::any_of(names.begin(), names.end(), is_ppc_high_r)) return ArchId::Ppc32;
  if (any_of(names, kArmish)) return ArchId::Arm;
  return std::nullopt;
}

std::span<const std::string_view> tenet_register_set(ArchId arch) {
  switch (arch) {
    case ArchId::X86_64: return kAmd64;
    case ArchId::I386: return kX86;
    case ArchId::Arm: return kArm32;
    default: return {};
  }
}

}  // namespace ttd::fmt::tenet
