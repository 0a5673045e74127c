#include "tools/recorder/elf_image.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "elf/elf_file.h"
#include "state/machine_state.h"

namespace ttd::rec {

namespace {

Result<std::vector<uint8_t>> read_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return make_error(path, "cannot run a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error(path, std::string("cannot open program: ") + std::strerror(errno));
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return make_error(path, "cannot read program");
  return bytes;
}

uint8_t prot_from_flags(uint32_t p_flags) {
  uint8_t prot = 0;
  if (p_flags & PF_R) prot |= kProtRead;
  if (p_flags & PF_W) prot |= kProtWrite;
  if (p_flags & PF_X) prot |= kProtExec;
  return prot;
}

std::string machine_name(uint16_t m) {
  switch (m) {
    case EM_386: return "i386";
    case EM_ARM: return "arm";
    case EM_MIPS: return "mips";
    case EM_PPC: return "ppc";
    case EM_PPC64: return "ppc64";
    case EM_RISCV: return "riscv";
    default: return "e_machine " + std::to_string(m);
  }
}

}  // namespace

Result<ElfImage> load_elf(const std::string& path, uint64_t dyn_bias) {
  auto bytes = read_file(path);
  if (!bytes) return bytes.error();
  ElfImage img;
  img.path = path;
  img.file = std::move(*bytes);
  const auto& f = img.file;

  if (f.size() < EI_NIDENT || std::memcmp(f.data(), ELFMAG, SELFMAG) != 0)
    return make_error(path, "not an ELF executable");
  if (f[EI_CLASS] != ELFCLASS64)
    return make_error(path, "unsupported architecture: only 64-bit ELF (x86-64, aarch64) can be recorded");
  if (f[EI_DATA] != ELFDATA2LSB)
    return make_error(path, "unsupported architecture: big-endian ELF");
  if (f.size() < sizeof(Elf64_Ehdr)) return make_error_at(path, f.size(), "truncated ELF header");

  // The identification bytes are checked above, so libelf only ever sees
  // a 64-bit little-endian file here and converts nothing.
  auto file = elf::ElfFile::from_bytes(path, f);
  if (!file) return file.error();
  const GElf_Ehdr& eh = file->header();
  if (eh.e_machine == EM_X86_64) img.arch = ArchId::X86_64;
  else if (eh.e_machine == EM_AARCH64) img.arch = ArchId::AArch64;
  else return make_error(path, "unsupported architecture: " + machine_name(eh.e_machine) +
                                   " (the recorder runs x86-64 and aarch64)");
  if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN)
    return make_error(path, "not an executable (ELF type " + std::to_string(eh.e_type) + ")");
  if (eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum == 0)
    return make_error_at(path, offsetof(Elf64_Ehdr, e_phentsize), "bad program header table");
  if (eh.e_phoff > f.size() || uint64_t(eh.e_phnum) * sizeof(Elf64_Phdr) > f.size() - eh.e_phoff)
    return make_error_at(path, offsetof(Elf64_Ehdr, e_phoff), "program header table lies outside the file");

  auto read_phdrs = file->program_headers();
  if (!read_phdrs) return read_phdrs.error();
  const std::vector<GElf_Phdr>& phdrs = *read_phdrs;
  for (size_t i = 0; i < phdrs.size(); ++i) {
    const auto& ph = phdrs[i];
    if (ph.p_type != PT_INTERP) continue;
    if (ph.p_offset > f.size() || ph.p_filesz > f.size() - ph.p_offset || ph.p_filesz < 2 || ph.p_filesz > 4096)
      return make_error_at(path, eh.e_phoff + i * sizeof(Elf64_Phdr), "bad PT_INTERP (program interpreter) entry");
    img.interp.assign(reinterpret_cast<const char*>(f.data() + ph.p_offset), ph.p_filesz);
    img.interp.resize(std::strlen(img.interp.c_str()));  // drop the NUL
  }
  img.position_independent = eh.e_type == ET_DYN;
  img.load_bias = img.position_independent ? dyn_bias : 0;

  uint64_t phdr_in_memory = 0;
  for (size_t i = 0; i < phdrs.size(); ++i) {
    const auto& ph = phdrs[i];
    uint64_t ph_off = eh.e_phoff + i * sizeof(Elf64_Phdr);
    if (ph.p_type == PT_PHDR) phdr_in_memory = ph.p_vaddr + img.load_bias;
    if (ph.p_type != PT_LOAD || ph.p_memsz == 0) continue;
    if (ph.p_filesz > ph.p_memsz || ph.p_offset > f.size() || ph.p_filesz > f.size() - ph.p_offset)
      return make_error_at(path, ph_off, "PT_LOAD segment lies outside the file");
    if (ph.p_vaddr + ph.p_memsz < ph.p_vaddr || ph.p_vaddr + ph.p_memsz + img.load_bias >= (1ull << 47))
      return make_error_at(path, ph_off, "PT_LOAD segment address out of range");
    ElfSegment s;
    s.vaddr = ph.p_vaddr + img.load_bias;
    s.mem_size = ph.p_memsz;
    s.file_offset = ph.p_offset;
    s.file_size = ph.p_filesz;
    s.prot = prot_from_flags(ph.p_flags);
    if (ph.p_align && (ph.p_align & (ph.p_align - 1)) == 0) img.max_align = std::max<uint64_t>(img.max_align, ph.p_align);
    img.segments.push_back(s);
    img.end = std::max(img.end, s.vaddr + s.mem_size);
    // Without PT_PHDR (musl's static executables) the headers are wherever
    // the segment holding file offset e_phoff puts them.
    if (eh.e_phoff >= ph.p_offset && eh.e_phoff < ph.p_offset + ph.p_filesz && phdr_in_memory == 0)
      phdr_in_memory = s.vaddr + (eh.e_phoff - ph.p_offset);
  }
  if (img.segments.empty()) return make_error(path, "no loadable segments");
  img.entry = eh.e_entry + img.load_bias;
  img.phdr_addr = phdr_in_memory;
  img.phnum = eh.e_phnum;
  img.phentsize = eh.e_phentsize;
  return img;
}

void rebase(ElfImage& img, uint64_t delta) {
  img.load_bias += delta;
  img.entry += delta;
  if (img.phdr_addr) img.phdr_addr += delta;
  img.end += delta;
  for (auto& s : img.segments) s.vaddr += delta;
}

}  // namespace ttd::rec
