// Tenet text traces (gaasedelen/tenet) as a step stream.
//
// Line convention, from Tenet's tracers (pin/pintenet.cpp record_diff,
// qemu/tenet.c vcpu_insn_exec) and its reader (trace/reader.py): a tracer
// writes line n from a callback that runs BEFORE the instruction at line n's
// ip executes. The line holds
//   - the registers that changed since line n-1 (the first line: the full
//     set), i.e. the register state before instruction n = after n-1;
//   - ip = the address of instruction n;
//   - the memory accesses made by instruction n-1 (recorded while it ran),
//     with the bytes read from memory at callback time, i.e. AFTER n-1.
// So line n is step n (EID n, pc = ip), and everything else on line n is an
// effect of step n-1. The first line's values are the initial state. The
// last instruction's effects are never written (no callback follows it).
#pragma once
#include <memory>
#include <string>

#include "formats/common/trace_reader.h"
#include "state/arch.h"

namespace ttd::fmt::tenet {

// One thread of one process: Tenet tracers write one file per thread.
constexpr uint64_t kThreadId = 1;
constexpr uint64_t kProcessId = 1;

class TenetReader : public TraceReader {
 public:
  // Reads up to the first non-blank line to deduce the architecture.
  static Result<std::unique_ptr<TenetReader>> open(const std::string& path);
  Status read(TraceSink& sink, const Progress& progress) override;
  ArchId arch() const { return arch_; }
  TraceInfo info() const;

 private:
  TenetReader(std::string path, ArchId arch) : path_(std::move(path)), arch_(arch) {}
  std::string path_;
  ArchId arch_;
};

}  // namespace ttd::fmt::tenet
