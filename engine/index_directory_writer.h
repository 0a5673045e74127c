// The index tables and directory head as IndexBuilder writes them
// (engine/index_tables.h; IndexFile reads them back): the chunk, page and
// segment tables cut into groups written as blobs, every table's group
// index, and the head (metadata JSON and where each table lies). The
// summary table's groups are already in the data region (the builder
// writes them as chunks close); their refs are passed in.
#pragma once
#include <cstdio>
#include <vector>

#include "engine/byte_codec.h"
#include "engine/index_file.h"

namespace ttd {

struct IndexTablesIn {
  const IndexMeta* meta = nullptr;
  const std::vector<ChunkBlobs>* chunks = nullptr;
  const std::vector<BlobRef>* summary_groups = nullptr;  // kGroupEntries[Summaries] chunks each
  const std::vector<BlobRef>* pages = nullptr;
  const std::vector<BlobRef>* segments = nullptr;
  // Summary filter groups (engine/summary_filter_writer.h), also already written.
  const std::vector<BlobRef>* pc_filter_groups = nullptr;
  const std::vector<BlobRef>* access_filter_groups = nullptr;
};

// Appends the tables to `out` at file offset `pos` (advanced past them)
// and fills `head`. False on a write error (errno tells).
bool write_index_tables(std::FILE* out, uint64_t& pos, const IndexTablesIn& in, ByteWriter& head);

}  // namespace ttd
