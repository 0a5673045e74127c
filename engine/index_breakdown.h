// Where an index's bytes go (`ttd index --breakdown`): stored and raw
// bytes of the chunk step streams, keyframes, page blobs (whole and
// delta), page-map segments, summary groups and the rest (header, the
// other table groups, group indexes, directory head). Reads every table
// entry but no blob: cost grows with the number of entries, not bytes.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "state/error.h"

namespace ttd {

class Trace;

struct IndexBytes {
  std::string part;
  uint64_t count = 0;   // blobs (or groups)
  uint64_t stored = 0;  // bytes in the file
  uint64_t raw = 0;     // decompressed bytes
};

// One row per part, in file order of importance; the last row is what no
// other row accounts for. An error names the table group that could not
// be read.
Result<std::vector<IndexBytes>> index_breakdown(const Trace& trace);

}  // namespace ttd
