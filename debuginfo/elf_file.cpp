#include "debuginfo/elf_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>

namespace ttd::dbg {

Result<std::unique_ptr<ElfFile>> ElfFile::open(const std::string& path) {
  std::unique_ptr<ElfFile> f(new ElfFile());
  f->path_ = path;
  f->fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (f->fd_ < 0) return make_error(path, std::string("cannot open the program: ") + std::strerror(errno));
  struct stat st {};
  if (::fstat(f->fd_, &st) != 0 || st.st_size < 64) return make_error(path, "not an ELF file (too short)");
  f->map_size_ = size_t(st.st_size);
  void* m = ::mmap(nullptr, f->map_size_, PROT_READ, MAP_PRIVATE, f->fd_, 0);
  if (m == MAP_FAILED) return make_error(path, std::string("cannot map the program: ") + std::strerror(errno));
  f->map_ = static_cast<const uint8_t*>(m);
  if (std::memcmp(f->map_, "\177ELF", 4) != 0) return make_error_at(path, 0, "not an ELF file (bad magic)");
  elf_version(EV_CURRENT);
  f->elf_ = elf_memory(reinterpret_cast<char*>(const_cast<uint8_t*>(f->map_)), f->map_size_);
  if (!f->elf_ || elf_kind(f->elf_) != ELF_K_ELF) return make_error(path, std::string("not an ELF file: ") + elf_errmsg(-1));
  GElf_Ehdr eh;
  if (!gelf_getehdr(f->elf_, &eh)) return make_error(path, std::string("bad ELF header: ") + elf_errmsg(-1));
  f->machine_ = eh.e_machine;
  f->is_64_ = gelf_getclass(f->elf_) == ELFCLASS64;
  size_t nph = 0;
  elf_getphdrnum(f->elf_, &nph);
  for (size_t i = 0; i < nph; ++i) {
    GElf_Phdr ph;
    if (!gelf_getphdr(f->elf_, int(i), &ph) || ph.p_type != PT_LOAD) continue;
    if (ph.p_offset + ph.p_filesz > f->map_size_) continue;  // truncated file: skip the segment
    f->segments_.push_back({ph.p_vaddr, ph.p_filesz, ph.p_offset});
  }
  // A missing .debug_info is normal (stripped programs): dwarf stays null.
  f->dwarf_ = dwarf_begin_elf(f->elf_, DWARF_C_READ, nullptr);
  if (f->dwarf_) f->debug_cfi_ = dwarf_getcfi(f->dwarf_);
  f->eh_cfi_ = dwarf_getcfi_elf(f->elf_);
  return f;
}

ElfFile::~ElfFile() {
  if (eh_cfi_) dwarf_cfi_end(eh_cfi_);
  if (dwarf_) dwarf_end(dwarf_);  // also frees debug_cfi_
  if (elf_) elf_end(elf_);
  if (map_) ::munmap(const_cast<uint8_t*>(map_), map_size_);
  if (fd_ >= 0) ::close(fd_);
}

size_t ElfFile::read(uint64_t addr, uint8_t* dst, size_t len) const {
  size_t done = 0;
  while (done < len) {
    uint64_t a = addr + done;
    const Segment* seg = nullptr;
    for (const auto& s : segments_)
      if (a >= s.vaddr && a < s.vaddr + s.filesz) seg = &s;
    if (!seg) break;
    size_t n = size_t(std::min<uint64_t>(len - done, seg->vaddr + seg->filesz - a));
    std::memcpy(dst + done, map_ + seg->offset + (a - seg->vaddr), n);
    done += n;
  }
  return done;
}

}  // namespace ttd::dbg
