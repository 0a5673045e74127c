// Amber TT6 and TT6E instruction traces (PowerPC, one file per thread) as a
// step stream.
//
// The file is INITIAL_PC, then one record per executed instruction: its
// opcode, plus the next pc (FLOW_ALTERING), the data address (MEMORY) or the
// address and a parameter (MEMORY_EXTENDED), the class following from the
// opcode by the spec's macros; escape records (primary opcode 0) are
// interleaved. Each instruction is a step of size 4 at the pc the previous
// records imply. What a step tells:
//   - its pc, and its opcode as the 4 code bytes at pc (reported when an
//     address first executes, so they are known at the step's own EID);
//   - the data addresses it read or wrote, without values (see
//     tt6_access_effects.h); no register but pc is ever known;
//   - sc is a Syscall step; TT6E's synthetic "b 0x700" + "rfi" pair after a
//     trap word become two Interrupt steps (size 0, attr "synthetic");
//   - thread-synchronisation escapes become Marker steps (attr "sync"), the
//     other escapes attributes of the next instruction.
#pragma once
#include <memory>
#include <string>

#include "formats/common/trace_reader.h"
#include "formats/tt6/tt6_layout.h"

namespace ttd::fmt::tt6 {

// Amber writes one file per thread: each file is one thread of one process.
constexpr uint64_t kThreadId = 1;
constexpr uint64_t kProcessId = 1;

class Tt6Reader : public TraceReader {
 public:
  // variant: Tt6 or Tt6e (the files carry no magic to tell them apart).
  static Result<std::unique_ptr<Tt6Reader>> open(const std::string& path, Variant variant);
  Status read(TraceSink& sink, const Progress& progress) override;
  TraceInfo info(uint32_t initial_pc) const;

 private:
  Tt6Reader(std::string path, Variant v) : path_(std::move(path)), variant_(v) {}
  std::string path_;
  Variant variant_;
};

}  // namespace ttd::fmt::tt6
