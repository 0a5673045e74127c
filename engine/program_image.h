// The traced program's loadable segments, read once from its ELF file:
// code bytes for pcs the trace does not hold (TT6 has none, FULL few,
// Tenet none). Segments sit at their link addresses plus a load bias: 0
// for a static (non-PIE) program; for a PIE (ET_DYN) whose link addresses
// hold no pc the trace runs, the bias that puts the ELF entry on a pc of
// the trace's first chunk (a trace that starts at, or passes, the program
// entry: the entry minus its page offset is where the kernel put the
// image). A PIE whose entry the first chunk does not run stays unplaced.
//
// choose_program_image() decides which file, if any, a trace uses: the one
// named in the open options (any failure is an error naming the file), else
// the program the trace names (exec_path) when it exists, is an ELF of the
// trace's machine and its executable segments hold pcs the trace runs
// (otherwise it is silently not used).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "state/arch.h"
#include "state/error.h"

namespace ttd {

class IndexFile;

class ProgramImage {
 public:
  // Reads every PT_LOAD segment's file bytes. Errors name the file.
  static Result<std::shared_ptr<ProgramImage>> open(const std::string& path);

  // Where the image is placed: its link addresses plus bias (see above).
  void place(uint64_t bias) { bias_ = bias; }

  const std::string& path() const { return path_; }
  uint16_t machine() const { return machine_; }  // e_machine (EM_PPC, ...)
  uint64_t entry() const { return entry_; }  // the ELF's, a link address
  bool position_independent() const { return pie_; }
  // How far the image sits from its link addresses (what qOffsets answers).
  uint64_t bias() const { return bias_; }
  // Addresses below are where the trace runs (link address + bias).
  // Copies the bytes at [addr, addr + len) that the file holds; returns how
  // many leading bytes it knows (0 outside every segment's file bytes).
  size_t read(uint64_t addr, uint8_t* dst, size_t len) const;
  // Whether addr lies in the file bytes of an executable segment.
  bool executable(uint64_t addr) const;

 private:
  struct Segment {
    uint64_t vaddr = 0;
    std::vector<uint8_t> bytes;  // the p_filesz file bytes (bss is not code)
    bool exec = false;
  };
  const Segment* segment_at(uint64_t addr) const;

  std::string path_;
  uint16_t machine_ = 0;
  uint64_t entry_ = 0;
  bool pie_ = false;
  uint64_t bias_ = 0;
  std::vector<Segment> segments_;  // sorted by vaddr
};

// The ELF e_machine of an architecture.
uint16_t elf_machine_of(ArchId a);

struct ProgramChoice {
  std::shared_ptr<const ProgramImage> image;  // null: none
  std::string source;  // how code bytes are found, for output ("trace memory, then program P")
};

// See the header comment. `index` gives the executed pcs (chunk summaries)
// for the coverage check; `trace_has_code` is the trace's code_bytes cap.
Result<ProgramChoice> choose_program_image(const std::string& explicit_path, const std::string& exec_path, ArchId arch,
                                           const IndexFile& index, bool trace_has_code);

}  // namespace ttd
