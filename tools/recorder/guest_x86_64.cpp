// x86-64 Linux guest: syscall via the `syscall` instruction, rax = number,
// rdi rsi rdx r10 r8 r9 = arguments, rax = result; kernel clobbers rcx/r11.
#include <cctype>
#include <cstring>

#include "tools/recorder/guest_arch.h"

namespace ttd::rec {

namespace {

void put(std::vector<uint8_t>& b, size_t off, uint64_t v, size_t n) {
  for (size_t i = 0; i < n; ++i) b[off + i] = uint8_t(v >> (8 * i));
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

class GuestX86_64 final : public GuestArch {
 public:
  ArchId id() const override { return ArchId::X86_64; }
  std::string_view platform() const override { return "x86_64"; }
  // CPUID(1).EDX of a basic x86-64 CPU (fpu..sse2); glibc asks cpuid itself.
  uint64_t hwcap() const override { return 0x078bfbffull; }

  Status prepare_cpu(uc_engine* uc) const override {
    // The state Linux starts a process in. Unicorn's defaults differ: its
    // x87 control word 0 selects 24-bit precision (long double arithmetic
    // comes out wrong) and MXCSR 0 unmasks every SSE exception.
    struct Init { int reg; uint64_t value; const char* name; };
    static const Init init[] = {
        {UC_X86_REG_EFLAGS, 0x202, "rflags"},   // IF set
        {UC_X86_REG_FPCW, 0x37f, "fctrl"},      // extended precision, all exceptions masked
        {UC_X86_REG_FPTAG, 0xffff, "ftag"},     // every x87 register empty
        {UC_X86_REG_MXCSR, 0x1f80, "mxcsr"},    // all SSE exceptions masked
    };
    for (const Init& i : init)
      if (uc_reg_write(uc, i.reg, &i.value) != UC_ERR_OK)
        return make_error("emulator", std::string("cannot set the initial ") + i.name);
    // CR4.OSFXSR and OSXMMEXCPT, as Linux sets them. Unicorn 2.0.1 runs SSE
    // code without them (its x86-64 reset sets only the hflags bit), but its
    // fxsave / fxrstor then leave out MXCSR and xmm0-15: glibc's lazy
    // binding trampoline (_dl_runtime_resolve_fxsave) lost the caller's
    // argument registers, so the first call of log() got whatever
    // _dl_fixup's SSE2 string functions left in xmm0 (issue 16).
    uint64_t cr4 = 0;
    if (uc_reg_read(uc, UC_X86_REG_CR4, &cr4) != UC_ERR_OK)
      return make_error("emulator", "cannot read the initial cr4");
    cr4 |= kCr4Osfxsr | kCr4Osxmmexcpt;
    if (uc_reg_write(uc, UC_X86_REG_CR4, &cr4) != UC_ERR_OK)
      return make_error("emulator", "cannot set the initial cr4 (OSFXSR, OSXMMEXCPT)");
    return {};
  }

  static constexpr uint64_t kCr4Osfxsr = 1ull << 9;
  static constexpr uint64_t kCr4Osxmmexcpt = 1ull << 10;

  bool syscall_via_insn_hook() const override { return true; }
  bool is_syscall_interrupt(uint32_t) const override { return false; }
  const SyscallAbi& syscall_abi() const override {
    static const SyscallAbi abi{UC_X86_REG_RAX,
                                {UC_X86_REG_RDI, UC_X86_REG_RSI, UC_X86_REG_RDX, UC_X86_REG_R10,
                                 UC_X86_REG_R8, UC_X86_REG_R9},
                                UC_X86_REG_RAX};
    return abi;
  }
  const SyscallTable& syscalls() const override { return syscall_table_x86_64(); }

  std::vector<std::pair<int, uint64_t>> syscall_clobbers(uc_engine* uc, uint64_t next_pc) const override {
    uint64_t rflags = 0;
    uc_reg_read(uc, UC_X86_REG_EFLAGS, &rflags);
    return {{UC_X86_REG_RCX, next_pc}, {UC_X86_REG_R11, rflags}};
  }

  // struct stat of x86-64 (arch/x86/include/uapi/asm/stat.h), 144 bytes.
  std::vector<uint8_t> encode_stat(const StatInfo& st) const override {
    std::vector<uint8_t> b(144, 0);
    put(b, 0, st.dev, 8);
    put(b, 8, st.ino, 8);
    put(b, 16, st.nlink, 8);
    put(b, 24, st.mode, 4);
    put(b, 28, st.uid, 4);
    put(b, 32, st.gid, 4);
    put(b, 40, st.rdev, 8);
    put(b, 48, uint64_t(st.size), 8);
    put(b, 56, uint64_t(st.blksize), 8);
    put(b, 64, uint64_t(st.blocks), 8);
    for (size_t t = 0; t < 3; ++t) {
      put(b, 72 + 16 * t, uint64_t(st.time_sec), 8);
      put(b, 80 + 16 * t, uint64_t(st.time_nsec), 8);
    }
    return b;
  }

  std::string parent_register(std::string_view n) const override {
    static const char* const gprs[][5] = {
        {"rax", "eax", "ax", "al", "ah"}, {"rbx", "ebx", "bx", "bl", "bh"},
        {"rcx", "ecx", "cx", "cl", "ch"}, {"rdx", "edx", "dx", "dl", "dh"},
        {"rsi", "esi", "si", "sil", ""},  {"rdi", "edi", "di", "dil", ""},
        {"rbp", "ebp", "bp", "bpl", ""},  {"rsp", "esp", "sp", "spl", ""},
        {"rip", "eip", "ip", "", ""},
    };
    for (const auto& row : gprs)
      for (const char* alias : row)
        if (*alias && n == alias) return row[0];
    if (n == "rflags" || n == "eflags" || n == "flags") return "eflags";
    if (n == "fpsw") return "fstat";
    // r8..r15 and their b/w/d parts.
    if (n.size() >= 2 && n[0] == 'r' && std::isdigit(uint8_t(n[1]))) {
      size_t i = 1;
      while (i < n.size() && std::isdigit(uint8_t(n[i]))) ++i;
      return std::string(n.substr(0, i));
    }
    // xmm/ymm/zmm N: the table has the low 128 bits (xmm0..15).
    if (n.size() > 3 && (starts_with(n, "xmm") || starts_with(n, "ymm") || starts_with(n, "zmm")))
      return "xmm" + std::string(n.substr(3));
    if (starts_with(n, "st(") && n.size() == 5) return std::string("st") + n[3];
    return std::string(n);  // cs, ss, ds, es, fs, gs
  }

  void implicit_writes(const cs_insn& insn, const std::vector<std::string>& cs_written,
                       std::vector<std::string>& out) const override {
    std::string_view m = insn.mnemonic;
    bool x87 = (!m.empty() && m[0] == 'f') || m == "emms";
    for (const auto& w : cs_written)
      if (starts_with(w, "mm") || starts_with(w, "st") || w == "fpsw") x87 = true;
    // gdb's st0..st7 are relative to the stack top and the x87 control
    // registers (tag word, last instruction/operand pointers, opcode)
    // change with almost every x87 or MMX instruction; Capstone names at
    // most the status word.
    if (x87) {
      for (int i = 0; i < 8; ++i) out.push_back("st" + std::to_string(i));
      for (const char* c : {"fctrl", "fstat", "ftag", "fiseg", "fioff", "foseg", "fooff", "fop"})
        out.push_back(c);
    }
    // State restores rewrite MXCSR and the vector registers wholesale.
    if (m == "ldmxcsr" || m == "vldmxcsr" || starts_with(m, "fxrstor") || starts_with(m, "xrstor")) {
      out.push_back("mxcsr");
      for (int i = 0; i < 16; ++i) out.push_back("xmm" + std::to_string(i));
    }
    // Capstone's eflags bits say which flags an instruction modifies even
    // when rflags is missing from its written-register list.
    constexpr uint64_t kFlagTests = X86_EFLAGS_TEST_OF | X86_EFLAGS_TEST_SF | X86_EFLAGS_TEST_ZF |
                                    X86_EFLAGS_TEST_PF | X86_EFLAGS_TEST_CF | X86_EFLAGS_TEST_NT |
                                    X86_EFLAGS_TEST_DF | X86_EFLAGS_TEST_RF | X86_EFLAGS_TEST_IF |
                                    X86_EFLAGS_TEST_TF | X86_EFLAGS_TEST_AF;
    if (insn.detail && (insn.detail->x86.eflags & ~kFlagTests)) out.push_back("eflags");
    if (m == "wrfsbase") out.push_back("fs_base");
    if (m == "wrgsbase") out.push_back("gs_base");
  }
};

}  // namespace

const GuestArch& guest_arch_x86_64() {
  static const GuestX86_64 arch;
  return arch;
}

Result<const GuestArch*> guest_arch(ArchId id) {
  switch (id) {
    case ArchId::X86_64: return &guest_arch_x86_64();
    case ArchId::AArch64: return &guest_arch_aarch64();
    default: return make_error("record", "unsupported architecture: the recorder runs x86-64 and aarch64");
  }
}

}  // namespace ttd::rec
