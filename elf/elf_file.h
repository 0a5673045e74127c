// One ELF reader for every part of ttd that opens an ELF file: the engine's
// program image (code bytes for traces that lack them), the XRay
// instrumentation map, and the recorder's loader. It wraps libelf and owns
// the descriptor and the libelf handle, so every error path closes both.
//
// Contract: open() refuses, with the path as `where`, a file it cannot open
// (the errno text), a directory, anything else but a regular file, and a file libelf does not
// take for ELF. from_bytes() parses bytes the caller already holds (they
// must outlive the ElfFile). After that the header is known; program
// headers and file bytes are read on demand and checked against the file's
// size, each error naming the header index or file offset. Nothing here
// throws.
#pragma once
#include <gelf.h>
#include <libelf.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "state/error.h"

namespace ttd::elf {

class ElfFile {
 public:
  // `what` names the file in messages ("the program", "instrumented
  // binary"): "cannot open <what>: ...", "<what> is not a regular file",
  // "<what> is a directory, not a file", "<what> is not an ELF file".
  static Result<ElfFile> open(const std::string& path, const std::string& what);
  static Result<ElfFile> from_bytes(const std::string& path, std::span<const uint8_t> bytes);

  ElfFile(ElfFile&& o) noexcept;
  ElfFile& operator=(ElfFile&& o) noexcept;
  ElfFile(const ElfFile&) = delete;
  ElfFile& operator=(const ElfFile&) = delete;
  ~ElfFile();

  const std::string& path() const { return path_; }
  uint64_t file_size() const { return size_; }
  const GElf_Ehdr& header() const { return header_; }
  uint16_t machine() const { return header_.e_machine; }
  bool is64() const { return header_.e_ident[EI_CLASS] == ELFCLASS64; }
  bool little_endian() const { return header_.e_ident[EI_DATA] == ELFDATA2LSB; }
  // The libelf handle, for section walks (symbols, relocations).
  Elf* libelf() const { return elf_; }

  // Every program header, in file order ("program header N: ..." on error).
  Result<std::vector<GElf_Phdr>> program_headers() const;
  // `size` bytes at file offset `offset`; an error names `where` (e.g.
  // "program header 3 (file offset 4096)") when they lie outside the file
  // or cannot be read.
  Result<std::vector<uint8_t>> read(uint64_t offset, uint64_t size, const std::string& where) const;

 private:
  ElfFile() = default;
  Status start(const std::string& not_elf);
  std::string path_;
  int fd_ = -1;                     // open(): owned
  const uint8_t* bytes_ = nullptr;  // from_bytes(): the caller's
  uint64_t size_ = 0;
  Elf* elf_ = nullptr;
  GElf_Ehdr header_{};
};

}  // namespace ttd::elf
