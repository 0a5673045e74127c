#include "elf/elf_program.h"

#include <elf.h>

#include <algorithm>
#include <cstring>

namespace ttd::elf {

namespace {

// Linux refuses interpreter paths longer than a page (PATH_MAX).
constexpr uint64_t kMaxInterpreterBytes = 4096;

Error header_error(const ElfFile& file, size_t index, const std::string& what) {
  return make_error_at(file.path(), program_header_offset(file, index),
                       "program header " + std::to_string(index) + ": " + what);
}

}  // namespace

std::string machine_name(uint16_t machine) {
  switch (machine) {
    case EM_X86_64: return "x86-64";
    case EM_AARCH64: return "aarch64";
    case EM_386: return "i386";
    case EM_ARM: return "arm";
    case EM_MIPS: return "mips";
    case EM_PPC: return "ppc";
    case EM_PPC64: return "ppc64";
    case EM_RISCV: return "riscv";
    default: return "e_machine " + std::to_string(machine);
  }
}

uint64_t program_header_offset(const ElfFile& file, size_t index) {
  return file.header().e_phoff + index * uint64_t(file.header().e_phentsize);
}

Status require_executable(const ElfFile& file, std::span<const uint16_t> machines, const std::string& supported) {
  const GElf_Ehdr& eh = file.header();
  if (!file.is64()) return make_error(file.path(), "unsupported architecture: 32-bit ELF (" + supported + ")");
  if (!file.little_endian()) return make_error(file.path(), "unsupported architecture: big-endian ELF (" + supported + ")");
  if (std::find(machines.begin(), machines.end(), eh.e_machine) == machines.end())
    return make_error(file.path(), "unsupported architecture: " + machine_name(eh.e_machine) + " (" + supported + ")");
  if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN)
    return make_error(file.path(), "not an executable (ELF type " + std::to_string(eh.e_type) + ")");
  if (eh.e_phnum == 0) return make_error_at(file.path(), offsetof(Elf64_Ehdr, e_phnum), "the file has no program headers");
  // The loader hands e_phentsize to the program (AT_PHENT); libelf reads
  // the table with its own entry size, so a different one is refused here.
  if (eh.e_phentsize != sizeof(Elf64_Phdr))
    return make_error_at(file.path(), offsetof(Elf64_Ehdr, e_phentsize),
                         "bad program header entry size " + std::to_string(eh.e_phentsize) + " (expected 56)");
  return {};
}

Result<std::vector<LoadSegment>> load_segments(const ElfFile& file) {
  auto phdrs = file.program_headers();
  if (!phdrs) return phdrs.error();
  std::vector<LoadSegment> out;
  for (size_t i = 0; i < phdrs->size(); ++i) {
    const GElf_Phdr& ph = (*phdrs)[i];
    if (ph.p_type != PT_LOAD || (ph.p_memsz == 0 && ph.p_filesz == 0)) continue;
    if (ph.p_offset > file.file_size() || ph.p_filesz > file.file_size() - ph.p_offset)
      return header_error(file, i, "PT_LOAD segment bytes run past the end of the file");
    if (ph.p_filesz > ph.p_memsz) return header_error(file, i, "PT_LOAD segment has more file bytes than memory bytes");
    if (ph.p_vaddr + ph.p_memsz < ph.p_vaddr) return header_error(file, i, "PT_LOAD segment wraps the address space");
    out.push_back({i, ph});
  }
  return out;
}

Result<std::string> interpreter(const ElfFile& file) {
  auto phdrs = file.program_headers();
  if (!phdrs) return phdrs.error();
  for (size_t i = 0; i < phdrs->size(); ++i) {
    const GElf_Phdr& ph = (*phdrs)[i];
    if (ph.p_type != PT_INTERP) continue;
    if (ph.p_filesz < 2 || ph.p_filesz > kMaxInterpreterBytes)
      return header_error(file, i, "bad PT_INTERP (program interpreter) entry: " + std::to_string(ph.p_filesz) + " bytes");
    auto bytes = file.read(ph.p_offset, ph.p_filesz, "PT_INTERP (program interpreter) entry");
    if (!bytes) return header_error(file, i, bytes.error().message);
    std::string path(bytes->begin(), bytes->end());
    path.resize(std::strlen(path.c_str()));  // up to the NUL
    if (path.empty()) return header_error(file, i, "bad PT_INTERP (program interpreter) entry: empty path");
    return path;
  }
  return std::string();
}

}  // namespace ttd::elf
