// Writes any readable trace of instructions as a UCIR trace
// (docs/formats/ucir.md) through formats/ucir's UcirWriter, the writer
// `ttd record` uses: a keyframe with the state at EID 0 (registers of the
// thread, mappings, every known memory byte except zero pages inside
// mappings, which UCIR's mappings zero-fill), then per step its memory
// accesses and register writes and OP_STEP (a jump where the pc does not
// follow on); a syscall step's effects go in the OP_SYSCALL after its
// OP_STEP, with the syscall's number, arguments and result from the step's
// attributes or, without them, from the Linux ABI registers.
//
// Threads go out with ttd's thread extension (docs/formats/ucir.md,
// "Threads"): UCIR thread n is the n-th thread met (1: the first step's);
// a thread another step began (a clone) gets a thread keyframe with its pc
// and registers right after that step; one that just appears begins at its
// first step, as in the source.
//
// Refused with an error naming the trace and what UCIR cannot hold: event
// steps (XRay function events, thread begin/end and other markers; the
// EID is named), several processes, several threads alive at EID 0, a
// thread ended by another's step (except by the last step), architectures
// without Unicorn 1.x register numbers (ppc32: TT6/FULL traces), no steps.
// Left out and counted: register writes without a Unicorn 1.x number (as
// the recorder drops them), values that became unknown, the bytes of
// reads (UCIR's reads carry none).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "engine/trace.h"
#include "state/error.h"

namespace ttd::cli {

struct UcirConvertResult {
  uint64_t steps = 0;
  uint64_t dropped_registers = 0;  // register writes UCIR cannot encode
  uint64_t unknowns_dropped = 0;   // "became unknown" effects UCIR cannot say
  std::vector<uint64_t> source_tids;  // [n - 1]: the source's tid of UCIR thread n
};

// Writes to `path` through a temporary file beside it, renamed into place
// after the writer closed without an error; on any error the temporary
// file is removed and `path` is left as it was.
Result<UcirConvertResult> write_ucir(std::shared_ptr<const Trace> t, const std::string& path);

}  // namespace ttd::cli
