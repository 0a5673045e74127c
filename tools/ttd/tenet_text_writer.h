// Writes any readable trace as a Tenet text trace (docs/formats/tenet.md),
// one thread's instructions only (Tenet holds one thread per file). Line n
// is step n: the registers step n-1 wrote, the pc of step n, and step n-1's
// memory accesses with their bytes; line 0 holds every register known at
// EID 0. Read values the trace does not record are taken from the replayed
// state before the access; reads of unknown bytes are left out. Tenet
// cannot carry: the last step's effects, code bytes, mappings, memory
// never accessed, events (non-instruction steps are refused, or with
// drop_events left out and counted, their register and memory writes put
// on the line after the step before them: line n is then the source's
// n-th non-event step). ppc32 goes out with gdb's register names
// (r0..r31, msr, cr, lr, ctr, xer, ...) and the pc as nip, ttd's
// extension: Tenet's plugin has no PowerPC definition; ttd's reader tells
// PowerPC by nip (or msr/cr/ctr/xer, r16..r31) on the first line.
#pragma once
#include <memory>
#include <string>

#include "engine/trace.h"
#include "state/error.h"

namespace ttd::cli {

struct TenetWriteResult {
  uint64_t lines = 0, reads_without_value = 0, events_dropped = 0;
};

// Writes to `path` through a temporary file renamed into place.
Result<TenetWriteResult> write_tenet(std::shared_ptr<const Trace> t, const std::string& path, bool drop_events = false);

}  // namespace ttd::cli
