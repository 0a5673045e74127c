// The index directory as IndexBuilder writes it (IndexFile::parse_directory
// reads it back): metadata JSON, chunk table with summaries, page table,
// page-map segment table.
#pragma once
#include <vector>

#include "engine/byte_codec.h"
#include "engine/index_file.h"

namespace ttd {

void write_index_directory(ByteWriter& dir, const IndexMeta& meta, const std::vector<ChunkEntry>& chunks,
                           const std::vector<BlobRef>& pages, const std::vector<BlobRef>& segments);

}  // namespace ttd
