// The check `ttd convert --to ucir` runs on its output: the written trace
// is opened (and indexed) like any trace and, at sampled EIDs, its state is
// compared with the source's: the pc of the step there, every register
// UCIR can encode that the source knows (known and equal in the output;
// one the source does not know may read as zero, UCIR has no unknown
// registers), the mappings, and every memory
// byte the output knows (it must be known and equal in the source). Bytes
// the source knows but the output does not (a read's value, which UCIR
// does not carry) are counted, not failed. The step's thread at each EID
// and every live thread's registers are compared through the writer's
// renumbering (source_tids[n - 1] is UCIR thread n); processes in order.
// Output EID k is compared with source EID eids.source_of(k) (the same EID
// unless events were dropped); the output's end with the source's end.
// A byte the output knows and the source does not is accepted only inside
// `made_unknown` (the source said it became unknown; UCIR keeps the
// earlier value), or as a zero inside a mapping (UCIR's mappings are
// zero-filled), and counted.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/trace.h"
#include "state/error.h"
#include "tools/ttd/converted_eids.h"
#include "tools/ttd/unknown_ranges.h"

namespace ttd::cli {

struct ConvertCheck {
  uint64_t eids = 0;            // EIDs compared
  uint64_t eids_mapped = 0;     // of those, compared with another source EID (events dropped before)
  uint64_t digests_equal = 0;   // of those, where the whole-state digests are equal too
  uint64_t bytes_compared = 0;  // memory bytes compared over all EIDs
  uint64_t bytes_only_in_source = 0;
  uint64_t bytes_stale_in_output = 0;
  uint64_t bytes_zero_in_output = 0;   // mapped, unknown to the source, zero in UCIR (summed over EIDs)  // known in the output, made unknown in the source (summed over EIDs)
  uint64_t registers_only_in_output = 0;  // unknown to the source, zero in UCIR (summed over EIDs)
  uint64_t threads_compared = 0;          // thread register files compared (summed over EIDs)
  uint64_t step_threads_compared = 0;     // EIDs whose step's thread was checked
};

// An error names the first EID and what differs there.
Result<ConvertCheck> verify_converted(std::shared_ptr<const Trace> src, const std::string& out_path, uint32_t samples,
                                      const std::vector<uint64_t>& source_tids, const ConvertedEids& eids,
                                      const UnknownRanges& made_unknown);

}  // namespace ttd::cli
