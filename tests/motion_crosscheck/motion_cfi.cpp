#include "motion_cfi.h"

namespace ttd::test {

namespace {

// DWARF call frame instructions (DWARF 5 spec, 6.4.2, figure 7.29).
constexpr uint8_t kDefCfa = 0x0c, kSameValue = 0x08, kOffsetBase = 0x80, kNop = 0x00;
constexpr uint32_t kCieId = 0xffffffff;  // .debug_frame's CIE marker (0 in .eh_frame)

struct Writer {
  std::vector<uint8_t> v;
  void u8(uint8_t b) { v.push_back(b); }
  void le(uint64_t x, size_t n) {
    for (size_t i = 0; i < n; ++i) v.push_back(uint8_t(x >> (8 * i)));
  }
  void uleb(uint64_t x) {
    do {
      uint8_t b = x & 0x7f;
      x >>= 7;
      v.push_back(uint8_t(b | (x ? 0x80 : 0)));
    } while (x);
  }
  void sleb(int64_t x) {
    for (bool more = true; more;) {
      uint8_t b = x & 0x7f;
      x >>= 7;
      more = !((x == 0 && !(b & 0x40)) || (x == -1 && (b & 0x40)));
      v.push_back(uint8_t(b | (more ? 0x80 : 0)));
    }
  }
  // Opens an entry: a length to fill in later; returns where it is.
  size_t open() {
    size_t at = v.size();
    le(0, 4);
    return at;
  }
  // Pads with DW_CFA_nop so that the entry, length field included, is a
  // multiple of the address size (DWARF 5, 6.4.1), and writes the length,
  // which does not count itself.
  void close(size_t at, size_t align) {
    while ((v.size() - at) % align) u8(kNop);
    uint64_t len = v.size() - at - 4;
    for (size_t i = 0; i < 4; ++i) v[at + i] = uint8_t(len >> (8 * i));
  }
};

struct Rule {
  uint8_t code_align;
  int8_t data_align;
  uint8_t ra;  // the return address column
  std::vector<uint8_t> initial;
};

}  // namespace

std::vector<uint8_t> motion_debug_frame(ArchId arch, const std::vector<FunctionRange>& functions) {
  Rule r;
  if (arch == ArchId::X86_64) {
    // DWARF numbers (System V x86-64 psABI, figure 3.36): rsp 7, return address 16.
    // def_cfa rsp+8; offset(16, 1 * data_align): return address at CFA-8.
    r = {1, -8, 16, {kDefCfa, 7, 8, uint8_t(kOffsetBase | 16), 1}};
  } else if (arch == ArchId::AArch64) {
    // DWARF numbers (AArch64 DWARF ABI, 4.1): x30 30, sp 31. def_cfa sp+0; x30 keeps the return address.
    r = {4, -8, 30, {kDefCfa, 31, 0, kSameValue, 30}};
  } else {
    return {};
  }
  const size_t addr = 8;
  Writer w;
  size_t cie = w.open();
  w.le(kCieId, 4);
  w.u8(1);  // version
  w.u8(0);  // augmentation ""
  w.uleb(r.code_align);
  w.sleb(r.data_align);
  w.u8(r.ra);
  w.v.insert(w.v.end(), r.initial.begin(), r.initial.end());
  w.close(cie, addr);
  for (const auto& f : functions) {
    size_t fde = w.open();
    w.le(cie, 4);  // the CIE's offset in the section
    w.le(f.start, addr);
    w.le(f.size, addr);
    w.close(fde, addr);
  }
  return w.v;
}

}  // namespace ttd::test
