#include "tests/fidelity/state_comparison.h"

#include <cstdio>
#include <cstring>
#include <vector>

namespace ttd::fidelity {

namespace {

// Little-endian bytes printed as one hex number, most significant first.
std::string hex_le(std::span<const uint8_t> b) {
  std::string s = "0x";
  char buf[3];
  for (size_t i = b.size(); i-- > 0;) {
    std::snprintf(buf, sizeof buf, "%02x", b[i]);
    s += buf;
  }
  return s;
}

std::span<const uint8_t> bytes_of(const void* p, size_t n) { return {static_cast<const uint8_t*>(p), n}; }

struct Comparer {
  uint64_t eid;
  const ArchDesc& arch;
  const RegisterFile& rec;
  uint64_t& comparisons;
  std::optional<Difference> first;

  // Compares the low `n` bytes of register `name` with `native`, under `mask`
  // (bytewise, may be empty = all bits).
  void reg(const char* name, std::span<const uint8_t> native, std::span<const uint8_t> mask = {}) {
    if (first) return;
    auto idx = arch.find(name);
    if (!idx) {
      first = Difference{eid, name, hex_le(native), "(not in the x86-64 register table)"};
      return;
    }
    ++comparisons;
    if (!rec.valid(*idx)) {
      first = Difference{eid, name, hex_le(native), "<unavailable>"};
      return;
    }
    auto r = rec.bytes(*idx);
    size_t n = std::min(native.size(), r.size());
    std::vector<uint8_t> a(native.begin(), native.begin() + n), b(r.begin(), r.begin() + n);
    for (size_t i = 0; i < n && !mask.empty(); ++i) {
      a[i] &= mask[i];
      b[i] &= mask[i];
    }
    if (a != b) first = Difference{eid, name, hex_le(a), hex_le(b)};
  }
  void reg64(const char* name, uint64_t v, uint64_t mask = ~0ull) {
    reg(name, bytes_of(&v, 8), bytes_of(&mask, 8));
  }
  void reg16(const char* name, uint16_t v) { reg(name, bytes_of(&v, 2)); }
};

}  // namespace

std::string Difference::to_string() const {
  return "EID " + std::to_string(eid) + ": " + what + " native " + native + ", recorded " + recorded;
}

std::optional<Difference> compare_registers(uint64_t eid, const NativeState& n, const ArchDesc& arch,
                                            const RegisterFile& recorded, const RegisterCheck& check,
                                            uint64_t& comparisons) {
  Comparer c{eid, arch, recorded, comparisons, {}};
  const user_regs_struct& r = n.regs;
  c.reg64("rip", r.rip);
  c.reg64("rax", r.rax);
  c.reg64("rbx", r.rbx);
  c.reg64("rcx", r.rcx);
  c.reg64("rdx", r.rdx);
  c.reg64("rsi", r.rsi);
  c.reg64("rdi", r.rdi);
  c.reg64("rbp", r.rbp);
  if (!check.skip_sp) c.reg64("rsp", r.rsp);
  c.reg64("r8", r.r8);
  c.reg64("r9", r.r9);
  c.reg64("r10", r.r10);
  c.reg64("r11", r.r11);
  c.reg64("r12", r.r12);
  c.reg64("r13", r.r13);
  c.reg64("r14", r.r14);
  c.reg64("r15", r.r15);
  c.reg64("eflags", r.eflags, kComparedFlags & ~check.undefined_flags);

  const user_fpregs_struct& f = n.fp;
  c.reg16("fctrl", f.cwd);
  c.reg16("fstat", f.swd);
  // FXSAVE keeps one bit per physical register (1 = not empty); gdb's ftag
  // is the full two-bit form. Compare what both can tell: empty or not.
  if (!c.first) {
    auto idx = arch.find("ftag");
    ++comparisons;
    if (!idx || !recorded.valid(*idx)) {
      c.first = Difference{eid, "ftag", "abridged " + hex_le(bytes_of(&f.ftw, 1)), "<unavailable>"};
    } else {
      uint16_t full = 0;
      std::memcpy(&full, recorded.bytes(*idx).data(), 2);
      uint8_t abridged = 0;
      for (int i = 0; i < 8; ++i)
        if (((full >> (2 * i)) & 3) != 3) abridged |= uint8_t(1u << i);
      if (abridged != uint8_t(f.ftw))
        c.first = Difference{eid, "ftag (abridged)", hex_le(bytes_of(&f.ftw, 1)), hex_le(bytes_of(&abridged, 1))};
    }
  }
  for (int i = 0; i < 8; ++i) {
    std::string name = "st" + std::to_string(i);
    c.reg(name.c_str(), bytes_of(&f.st_space[4 * i], 10));
  }
  for (int i = 0; i < 16; ++i) {
    std::string name = "xmm" + std::to_string(i);
    c.reg(name.c_str(), bytes_of(&f.xmm_space[4 * i], 16));
  }
  uint32_t mxcsr = f.mxcsr;
  c.reg("mxcsr", bytes_of(&mxcsr, 4));
  return c.first;
}

std::optional<Difference> compare_memory(uint64_t eid, uint64_t addr, std::span<const uint8_t> native,
                                         const PagedMemory& recorded, uint64_t& comparisons) {
  std::vector<uint8_t> got(native.size()), valid(native.size());
  recorded.read(addr, got.data(), valid.data(), native.size());
  for (size_t i = 0; i < native.size(); ++i) {
    ++comparisons;
    if (valid[i] && got[i] == native[i]) continue;
    char where[48];
    std::snprintf(where, sizeof where, "memory 0x%llx", (unsigned long long)(addr + i));
    return Difference{eid, where, hex_le(native.subspan(i, 1)),
                      valid[i] ? hex_le(std::span<const uint8_t>(&got[i], 1)) : std::string("<unknown>")};
  }
  return std::nullopt;
}

}  // namespace ttd::fidelity
