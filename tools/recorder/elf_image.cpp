#include "tools/recorder/elf_image.h"

#include <elf.h>

#include <algorithm>
#include <array>

#include "elf/elf_file.h"
#include "elf/elf_program.h"
#include "state/machine_state.h"

namespace ttd::rec {

namespace {

// The guest's user address space ends here (47-bit, as on x86-64 Linux).
constexpr uint64_t kUserAddressEnd = 1ull << 47;

uint8_t prot_from_flags(uint32_t p_flags) {
  uint8_t prot = 0;
  if (p_flags & PF_R) prot |= kProtRead;
  if (p_flags & PF_W) prot |= kProtWrite;
  if (p_flags & PF_X) prot |= kProtExec;
  return prot;
}

}  // namespace

Result<ElfImage> load_elf(const std::string& path, uint64_t dyn_bias) {
  auto file = elf::ElfFile::open(path, "program");
  if (!file) return file.error();
  constexpr std::array<uint16_t, 2> kMachines{EM_X86_64, EM_AARCH64};
  if (auto st = elf::require_executable(*file, kMachines, "the recorder runs x86-64 and aarch64"); !st)
    return st.error();
  const GElf_Ehdr& eh = file->header();
  ElfImage img;
  img.path = path;
  img.arch = eh.e_machine == EM_AARCH64 ? ArchId::AArch64 : ArchId::X86_64;
  auto interp = elf::interpreter(*file);
  if (!interp) return interp.error();
  img.interp = std::move(*interp);
  img.position_independent = eh.e_type == ET_DYN;
  img.load_bias = img.position_independent ? dyn_bias : 0;

  auto loads = elf::load_segments(*file);
  if (!loads) return loads.error();
  auto phdrs = file->program_headers();
  if (!phdrs) return phdrs.error();
  uint64_t phdr_in_memory = 0;
  for (const GElf_Phdr& ph : *phdrs)
    if (ph.p_type == PT_PHDR) phdr_in_memory = ph.p_vaddr + img.load_bias;
  for (const elf::LoadSegment& load : *loads) {
    const GElf_Phdr& ph = load.header;
    if (ph.p_memsz == 0) continue;
    if (ph.p_vaddr + ph.p_memsz + img.load_bias >= kUserAddressEnd)
      return make_error_at(path, elf::program_header_offset(*file, load.index),
                           "program header " + std::to_string(load.index) + ": PT_LOAD segment address out of range");
    ElfSegment s;
    s.vaddr = ph.p_vaddr + img.load_bias;
    s.mem_size = ph.p_memsz;
    s.prot = prot_from_flags(ph.p_flags);
    auto bytes = file->read(ph.p_offset, ph.p_filesz, "program header " + std::to_string(load.index));
    if (!bytes) return bytes.error();
    s.bytes = std::move(*bytes);
    if (ph.p_align && (ph.p_align & (ph.p_align - 1)) == 0) img.max_align = std::max<uint64_t>(img.max_align, ph.p_align);
    img.end = std::max(img.end, s.vaddr + s.mem_size);
    // Without PT_PHDR (musl's static executables) the headers are wherever
    // the segment holding file offset e_phoff puts them.
    if (eh.e_phoff >= ph.p_offset && eh.e_phoff < ph.p_offset + ph.p_filesz && phdr_in_memory == 0)
      phdr_in_memory = s.vaddr + (eh.e_phoff - ph.p_offset);
    img.segments.push_back(std::move(s));
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
