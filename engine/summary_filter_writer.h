// The builder's side of the summary filter tables (engine/summary_filter.h):
// fed each chunk's summary as the chunk closes and told when a summary group
// ends, it encodes the group's two filters and writes them, a filter-table
// group at a time, through the index's BlobWriter, so the builder holds at
// most one group of each table.
#pragma once
#include <cstdint>
#include <vector>

#include "engine/blob_writer.h"
#include "engine/summary_filter.h"

namespace ttd {

class SummaryFilterWriter {
 public:
  void add(const ChunkSummary& s) { filters_.add(s); }
  // The summary group just written ends here.
  void end_summary_group(BlobWriter& blobs);
  // Writes what is left (after the last end_summary_group).
  void finish(BlobWriter& blobs);
  // The refs of the two tables' groups, by group number, once `blobs` has
  // finished (refs: BlobWriter::refs()).
  void group_refs(const std::vector<BlobRef>& refs, std::vector<BlobRef>& pcs, std::vector<BlobRef>& access) const;

 private:
  void flush(BlobWriter& blobs);

  SummaryFilterBuilder filters_;
  ByteWriter pcs_, access_;
  uint32_t in_group_ = 0;  // filters in pcs_ / access_
  uint64_t groups_ = 0;    // summary groups taken: the next one's number (its filters' seed)
  std::vector<uint64_t> pc_tickets_, access_tickets_;
};

}  // namespace ttd
