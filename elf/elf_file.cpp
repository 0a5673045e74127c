#include "elf/elf_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace ttd::elf {

Result<ElfFile> ElfFile::open(const std::string& path, const std::string& what) {
  ElfFile f;
  f.path_ = path;
  f.fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (f.fd_ < 0) return make_error(path, "cannot open " + what + ": " + std::strerror(errno));
  struct stat sb {};
  if (::fstat(f.fd_, &sb) != 0) return make_error(path, "cannot stat " + what + ": " + std::strerror(errno));
  if (S_ISDIR(sb.st_mode)) return make_error(path, what + " is a directory, not a file");
  if (!S_ISREG(sb.st_mode)) return make_error(path, what + " is not a regular file");
  f.size_ = uint64_t(sb.st_size);
  if (auto s = f.start(what + " is not an ELF file"); !s) return s.error();
  return f;
}

Result<ElfFile> ElfFile::from_bytes(const std::string& path, std::span<const uint8_t> bytes) {
  ElfFile f;
  f.path_ = path;
  f.bytes_ = bytes.data();
  f.size_ = bytes.size();
  if (auto s = f.start("not an ELF file"); !s) return s.error();
  return f;
}

Status ElfFile::start(const std::string& not_elf) {
  if (elf_version(EV_CURRENT) == EV_NONE) return make_error(path_, "libelf is too old");
  // elf_memory takes a mutable image but only writes to it to convert a
  // foreign byte order, and this reader never asks libelf to convert data.
  elf_ = fd_ >= 0 ? elf_begin(fd_, ELF_C_READ, nullptr)
                  : elf_memory(reinterpret_cast<char*>(const_cast<uint8_t*>(bytes_)), size_t(size_));
  if (!elf_ || elf_kind(elf_) != ELF_K_ELF) return make_error(path_, not_elf);
  if (!gelf_getehdr(elf_, &header_)) return make_error(path_, std::string("bad ELF header: ") + elf_errmsg(-1));
  return {};
}

ElfFile::ElfFile(ElfFile&& o) noexcept
    : path_(std::move(o.path_)), fd_(o.fd_), bytes_(o.bytes_), size_(o.size_), elf_(o.elf_), header_(o.header_) {
  o.fd_ = -1;
  o.elf_ = nullptr;
}

ElfFile& ElfFile::operator=(ElfFile&& o) noexcept {
  if (this != &o) {
    if (elf_) elf_end(elf_);
    if (fd_ >= 0) ::close(fd_);
    path_ = std::move(o.path_);
    fd_ = o.fd_;
    bytes_ = o.bytes_;
    size_ = o.size_;
    elf_ = o.elf_;
    header_ = o.header_;
    o.fd_ = -1;
    o.elf_ = nullptr;
  }
  return *this;
}

ElfFile::~ElfFile() {
  if (elf_) elf_end(elf_);
  if (fd_ >= 0) ::close(fd_);
}

Result<std::vector<GElf_Phdr>> ElfFile::program_headers() const {
  size_t n = 0;
  if (elf_getphdrnum(elf_, &n) != 0) return make_error(path_, std::string("bad program header table: ") + elf_errmsg(-1));
  std::vector<GElf_Phdr> out(n);
  for (size_t i = 0; i < n; ++i)
    if (!gelf_getphdr(elf_, int(i), &out[i]))
      return make_error(path_, "program header " + std::to_string(i) + ": " + elf_errmsg(-1));
  return out;
}

Result<std::vector<uint8_t>> ElfFile::read(uint64_t offset, uint64_t size, const std::string& where) const {
  if (offset > size_ || size > size_ - offset) return make_error(path_, where + ": bytes run past the end of the file");
  std::vector<uint8_t> out(static_cast<size_t>(size));
  if (bytes_) {
    if (size) std::memcpy(out.data(), bytes_ + offset, size_t(size));
    return out;
  }
  size_t got = 0;
  while (got < out.size()) {
    ssize_t n = ::pread(fd_, out.data() + got, out.size() - got, off_t(offset + got));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return make_error(path_, where + ": cannot read: " + (n < 0 ? std::strerror(errno) : "short file"));
    got += size_t(n);
  }
  return out;
}

}  // namespace ttd::elf
