// AArch64 Linux guest: syscall via `svc #0` (an EXCP_SWI interrupt in
// Unicorn), x8 = number, x0..x5 = arguments, x0 = result.
#include <cctype>

#include "tools/recorder/guest_arch.h"

namespace ttd::rec {

namespace {

// QEMU's exception number for svc (target/arm/cpu.h EXCP_SWI).
constexpr uint32_t kExcpSwi = 2;

void put(std::vector<uint8_t>& b, size_t off, uint64_t v, size_t n) {
  for (size_t i = 0; i < n; ++i) b[off + i] = uint8_t(v >> (8 * i));
}

class GuestAArch64 final : public GuestArch {
 public:
  ArchId id() const override { return ArchId::AArch64; }
  std::string_view platform() const override { return "aarch64"; }
  // HWCAP_FP | HWCAP_ASIMD: what every AArch64 Linux machine has. Leaving
  // out HWCAP_CPUID keeps glibc from reading MIDR_EL1.
  uint64_t hwcap() const override { return 0x3; }

  Status prepare_cpu(uc_engine* uc) const override {
    // FP/SIMD enabled (CPACR_EL1.FPEN = 0b11), as the kernel leaves it.
    uint64_t cpacr = 0;
    uc_reg_read(uc, UC_ARM64_REG_CPACR_EL1, &cpacr);
    cpacr |= 3ull << 20;
    if (uc_reg_write(uc, UC_ARM64_REG_CPACR_EL1, &cpacr) != UC_ERR_OK)
      return make_error("emulator", "cannot enable FP/SIMD (CPACR_EL1)");
    // User code runs at EL0 with the flags clear (PSTATE = EL0t).
    uint64_t pstate = 0;
    if (uc_reg_write(uc, UC_ARM64_REG_PSTATE, &pstate) != UC_ERR_OK)
      return make_error("emulator", "cannot set PSTATE");
    return {};
  }

  bool syscall_via_insn_hook() const override { return false; }
  bool is_syscall_interrupt(uint32_t intno) const override { return intno == kExcpSwi; }
  const SyscallAbi& syscall_abi() const override {
    static const SyscallAbi abi{UC_ARM64_REG_X8,
                                {UC_ARM64_REG_X0, UC_ARM64_REG_X1, UC_ARM64_REG_X2, UC_ARM64_REG_X3,
                                 UC_ARM64_REG_X4, UC_ARM64_REG_X5},
                                UC_ARM64_REG_X0};
    return abi;
  }
  const SyscallTable& syscalls() const override { return syscall_table_aarch64(); }

  // struct stat of the generic ABI (include/uapi/asm-generic/stat.h), 128 bytes.
  std::vector<uint8_t> encode_stat(const StatInfo& st) const override {
    std::vector<uint8_t> b(128, 0);
    put(b, 0, st.dev, 8);
    put(b, 8, st.ino, 8);
    put(b, 16, st.mode, 4);
    put(b, 20, st.nlink, 4);
    put(b, 24, st.uid, 4);
    put(b, 28, st.gid, 4);
    put(b, 32, st.rdev, 8);
    put(b, 48, uint64_t(st.size), 8);
    put(b, 56, uint64_t(st.blksize), 4);
    put(b, 64, uint64_t(st.blocks), 8);
    for (size_t t = 0; t < 3; ++t) {
      put(b, 72 + 16 * t, uint64_t(st.time_sec), 8);
      put(b, 80 + 16 * t, uint64_t(st.time_nsec), 8);
    }
    return b;
  }

  std::string parent_register(std::string_view n) const override {
    if (n == "wsp" || n == "sp") return "sp";
    if (n == "nzcv") return "cpsr";
    if (n == "fp") return "x29";
    if (n == "lr") return "x30";
    if (n.size() >= 2 && std::isdigit(uint8_t(n[1]))) {
      std::string num(n.substr(1));
      switch (n[0]) {
        case 'w': case 'x': return "x" + num;
        case 'b': case 'h': case 's': case 'd': case 'q': case 'v': return "v" + num;
      }
    }
    return std::string(n);
  }

  void implicit_writes(const cs_insn& insn, const std::vector<std::string>& cs_written,
                       std::vector<std::string>& out) const override {
    std::string_view m = insn.mnemonic;
    // Floating-point arithmetic accumulates exception flags in FPSR, which
    // Capstone never lists.
    bool fp = false;
    for (const auto& w : cs_written)
      if (!w.empty() && std::string_view("bhsdqv").find(w[0]) != std::string_view::npos &&
          w.size() >= 2 && std::isdigit(uint8_t(w[1])))
        fp = true;
    if (fp || (!m.empty() && m[0] == 'f')) out.push_back("fpsr");
    // System register writes (msr nzcv / fpcr / fpsr / daif ...).
    if (m == "msr") {
      for (const char* r : {"cpsr", "fpsr", "fpcr", "tpidr"}) out.push_back(r);
    }
  }
};

}  // namespace

const GuestArch& guest_arch_aarch64() {
  static const GuestAArch64 arch;
  return arch;
}

}  // namespace ttd::rec
