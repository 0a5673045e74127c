#include "motion_elf.h"

#include <elf.h>

#include <cstring>
#include <fstream>

#include "motion_cfi.h"

namespace ttd::test {

namespace {

struct Bytes {
  std::vector<uint8_t> v;
  bool big = false;
  void put(size_t at, uint64_t x, size_t n) {
    if (v.size() < at + n) v.resize(at + n, 0);
    for (size_t i = 0; i < n; ++i) v[at + i] = uint8_t(big ? x >> (8 * (n - 1 - i)) : x >> (8 * i));
  }
  size_t append(const std::vector<uint8_t>& b) {
    size_t at = v.size();
    v.insert(v.end(), b.begin(), b.end());
    return at;
  }
};

}  // namespace

Status write_motion_elf_with_symbols(const MotionProgram& p, const std::string& path) {
  const bool e32 = p.arch == ArchId::Ppc32;
  const uint16_t machine = p.arch == ArchId::Ppc32 ? EM_PPC : p.arch == ArchId::AArch64 ? EM_AARCH64 : EM_X86_64;
  Bytes f;
  f.big = e32;
  const size_t ehsize = e32 ? 52 : 64, phsize = e32 ? 32 : 56, shsize = e32 ? 40 : 64, symsize = e32 ? 16 : 24;
  const size_t w = e32 ? 4 : 8;  // address width
  f.v.assign(0x1000, 0);
  std::memcpy(f.v.data(), ELFMAG, SELFMAG);
  f.v[EI_CLASS] = e32 ? ELFCLASS32 : ELFCLASS64;
  f.v[EI_DATA] = e32 ? ELFDATA2MSB : ELFDATA2LSB;
  f.v[EI_VERSION] = EV_CURRENT;
  const size_t text_off = f.append(p.code);

  // .strtab: "", main, f, g; .shstrtab: "", .text, .symtab, .strtab, .shstrtab, .debug_frame
  const std::string strtab = std::string("\0main\0f\0g\0", 10);
  const std::string shstr = std::string("\0.text\0.symtab\0.strtab\0.shstrtab\0.debug_frame\0", 46);
  struct Sym {
    uint32_t name;
    uint64_t value;
  } syms[] = {{1, kMotionCode}, {6, kMotionCode + 0x100}, {8, kMotionCode + 0x200}};
  // Each function owns a 0x100-byte slot (its symbol's size), so does its FDE.
  const std::vector<uint8_t> frames =
      motion_debug_frame(p.arch, {{syms[0].value, 0x100}, {syms[1].value, 0x100}, {syms[2].value, 0x100}});
  const size_t shnum = frames.empty() ? 5 : 6;
  std::vector<uint8_t> symtab(symsize * 4, 0);  // entry 0 is the null symbol
  Bytes st;
  st.big = e32;
  st.v = symtab;
  for (size_t i = 0; i < 3; ++i) {
    size_t at = symsize * (i + 1);
    st.put(at, syms[i].name, 4);
    const uint8_t info = uint8_t(STB_GLOBAL << 4 | STT_FUNC);
    if (e32) {
      st.put(at + 4, syms[i].value, 4);
      st.put(at + 8, 0x100, 4);
      st.put(at + 12, info, 1);
      st.put(at + 14, 1, 2);  // .text
    } else {
      st.put(at + 4, info, 1);
      st.put(at + 6, 1, 2);
      st.put(at + 8, syms[i].value, 8);
      st.put(at + 16, 0x100, 8);
    }
  }
  const size_t sym_off = f.append(st.v);
  const size_t str_off = f.append(std::vector<uint8_t>(strtab.begin(), strtab.end()));
  const size_t shstr_off = f.append(std::vector<uint8_t>(shstr.begin(), shstr.end()));
  while (f.v.size() % w) f.v.push_back(0);
  const size_t frames_off = f.append(frames);
  while (f.v.size() % 8) f.v.push_back(0);
  const size_t sh_off = f.v.size();

  // ELF header
  f.put(16, ET_EXEC, 2);
  f.put(18, machine, 2);
  f.put(20, EV_CURRENT, 4);
  f.put(24, kMotionCode, w);                       // e_entry
  f.put(24 + w, ehsize, w);                        // e_phoff
  f.put(24 + 2 * w, sh_off, w);                    // e_shoff
  const size_t rest = 24 + 3 * w + 4;              // after e_flags
  f.put(rest, ehsize, 2);
  f.put(rest + 2, phsize, 2);
  f.put(rest + 4, 1, 2);
  f.put(rest + 6, shsize, 2);
  f.put(rest + 8, shnum, 2);
  f.put(rest + 10, 4, 2);  // e_shstrndx
  // PT_LOAD of the code
  const size_t ph = ehsize;
  if (e32) {
    f.put(ph, PT_LOAD, 4);
    f.put(ph + 4, text_off, 4);
    f.put(ph + 8, kMotionCode, 4);
    f.put(ph + 12, kMotionCode, 4);
    f.put(ph + 16, p.code.size(), 4);
    f.put(ph + 20, p.code.size(), 4);
    f.put(ph + 24, PF_R | PF_X, 4);
    f.put(ph + 28, 0x1000, 4);
  } else {
    f.put(ph, PT_LOAD, 4);
    f.put(ph + 4, PF_R | PF_X, 4);
    f.put(ph + 8, text_off, 8);
    f.put(ph + 16, kMotionCode, 8);
    f.put(ph + 24, kMotionCode, 8);
    f.put(ph + 32, p.code.size(), 8);
    f.put(ph + 40, p.code.size(), 8);
    f.put(ph + 48, 0x1000, 8);
  }
  // Section headers: null, .text, .symtab, .strtab, .shstrtab, .debug_frame (not on ppc32)
  struct Sh {
    uint32_t name, type;
    uint64_t flags, addr, off, size;
    uint32_t link, info;
    uint64_t align, entsize;
  } shs[] = {{0, SHT_NULL, 0, 0, 0, 0, 0, 0, 0, 0},
             {1, SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, kMotionCode, text_off, p.code.size(), 0, 0, 16, 0},
             {7, SHT_SYMTAB, 0, 0, sym_off, st.v.size(), 3, 1, w, symsize},
             {15, SHT_STRTAB, 0, 0, str_off, strtab.size(), 0, 0, 1, 0},
             {23, SHT_STRTAB, 0, 0, shstr_off, shstr.size(), 0, 0, 1, 0},
             {33, SHT_PROGBITS, 0, 0, frames_off, frames.size(), 0, 0, w, 0}};
  for (size_t i = 0; i < shnum; ++i) {
    size_t at = sh_off + i * shsize;
    const Sh& s = shs[i];
    f.put(at, s.name, 4);
    f.put(at + 4, s.type, 4);
    f.put(at + 8, s.flags, w);
    f.put(at + 8 + w, s.addr, w);
    f.put(at + 8 + 2 * w, s.off, w);
    f.put(at + 8 + 3 * w, s.size, w);
    f.put(at + 8 + 4 * w, s.link, 4);
    f.put(at + 12 + 4 * w, s.info, 4);
    f.put(at + 16 + 4 * w, s.align, w);
    f.put(at + 16 + 5 * w, s.entsize, w);
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(f.v.data()), std::streamsize(f.v.size()));
  out.close();
  if (!out) return make_error(path, "could not write the ELF");
  return {};
}

}  // namespace ttd::test
