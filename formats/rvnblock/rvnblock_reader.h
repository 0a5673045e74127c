// REVEN rvnblock traces as a step stream. EID = REVEN transition id: every
// executed instruction is one Instruction step, every interrupt / fault
// transition one Interrupt step. The trace knows only pcs and code bytes:
// each block's bytes are written to memory just before its first execution
// so a debugger can disassemble at pc; registers and data memory stay
// unknown.
#pragma once
#include <memory>
#include <string>

#include "formats/common/trace_reader.h"
#include "formats/rvnblock/block_trace.h"

namespace ttd::fmt::rvnblock {

// All steps run in one thread of one process.
constexpr uint64_t kThreadId = 1;
constexpr uint64_t kProcessId = 1;

class RvnblockReader : public TraceReader {
 public:
  // Refuses a trace whose execution table claims more transitions than
  // opts allow for a file of its size (step_limit.h).
  static Result<std::unique_ptr<RvnblockReader>> open(const std::string& path, const ReaderOptions& opts = {});
  Status read(TraceSink& sink, const Progress& progress) override;
  TraceInfo info() const;

 private:
  explicit RvnblockReader(std::unique_ptr<BlockTrace> trace) : trace_(std::move(trace)) {}
  std::unique_ptr<BlockTrace> trace_;
};

}  // namespace ttd::fmt::rvnblock
