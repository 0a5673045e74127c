// Writes any readable trace of instructions as a UCIR trace
// (docs/formats/ucir.md) through formats/ucir's UcirWriter, the writer
// `ttd record` uses: a keyframe with the state before the first step
// written (registers of the thread, mappings, every known memory byte
// except zero pages inside mappings, which UCIR's mappings zero-fill), then
// per step its memory accesses and register writes and OP_STEP (a jump
// where the pc does not follow on); a syscall step's effects go in the
// OP_SYSCALL after its OP_STEP, with the syscall's number, arguments and
// result from the step's attributes or, without them, from the Linux ABI
// registers. ppc32 goes out in ttd's ppc32 extension (Unicorn 2 register
// numbers, big-endian), which usercorn does not read.
//
// Threads go out with ttd's thread extension (docs/formats/ucir.md,
// "Threads"): UCIR thread n is the n-th thread met (1: the first step's);
// a thread another step began (a clone) gets a thread keyframe with its pc
// and registers right after that step; a thread alive before the first
// step written (UMTracer's threads) one right after the process keyframe
// (numbered after the first step's thread, in thread id order);
// one that just appears begins at its first step, as in the source.
//
// Event steps (UMTracer's thread begin/end, context changes, markers; XRay
// function events) are refused naming the EID, unless drop_events: then
// they are left out and counted, their effects on the state written with
// the step before them (or the keyframe, before the first step), and the
// output's EIDs are the source's non-event steps (ConvertedEids).
//
// Refused with an error naming the trace and what UCIR cannot hold: a
// register written or known that UCIR has no number for (named), several
// processes, a thread ended
// by another's step (except by the last step), a step writing registers of
// another running thread, no steps. Left out and counted: values that
// became unknown, the bytes of reads (UCIR's reads carry none).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "engine/trace.h"
#include "state/error.h"
#include "tools/ttd/converted_eids.h"
#include "tools/ttd/unknown_ranges.h"

namespace ttd::cli {

struct UcirConvertOptions {
  bool drop_events = false;
};

struct UcirConvertResult {
  uint64_t steps = 0;
  uint64_t events_dropped = 0;        // event steps left out (drop_events)
  uint64_t unknowns_dropped = 0;      // "became unknown" effects UCIR cannot say
  std::vector<uint64_t> source_tids;  // [n - 1]: the source's tid of UCIR thread n
  ConvertedEids eids;                 // output EID -> source EID
  UnknownRanges made_unknown;         // memory the source said became unknown
};

// Writes to `path` through a temporary file beside it, renamed into place
// after the writer closed without an error; on any error the temporary
// file is removed and `path` is left as it was.
Result<UcirConvertResult> write_ucir(std::shared_ptr<const Trace> t, const std::string& path,
                                     const UcirConvertOptions& options = {});

}  // namespace ttd::cli
