// The index's tables (chunk blobs, chunk summaries, page blobs, page-map
// segment blobs; from version 11 the summary filters) as stored from version 9: each is cut into groups
// of a fixed number of entries, every group a checksummed blob; a table's
// group index (one GroupRecord per group, at a known offset) finds group g
// with one 32-byte read. The reader fetches a group only when one of its
// entries is needed, so opening costs the same whatever the trace length.
//
// Encodings inside a group (varints, engine/byte_codec.h):
//   chunk:   steps, stream ref, keyframe ref
//   summary: the ChunkSummary lists (delta-coded), slot masks, regs_written
//   page / segment: ref
//   pc / access filter: engine/summary_filter.h
//   ref:     offset, stored size, raw size, fixed32 checksum
#pragma once
#include <cstdint>
#include <vector>

#include "engine/byte_codec.h"
#include "engine/index_layout.h"

namespace ttd {

// PcFilters / AccessFilters (version 11): entry g is summary group g's
// filter (engine/summary_filter.h).
enum class IndexTable : uint8_t { Chunks = 0, Summaries = 1, Pages = 2, Segments = 3, PcFilters = 4, AccessFilters = 5 };
constexpr size_t kIndexTables = 6;
// Entries per group. Summaries are grouped by fewer: a chunk's summary can
// run to kilobytes (its pcs and lines), and a query usually needs a run of
// neighbouring chunks, not a thousand.
// A filter group covers 64 x 32 chunks (~6 M steps): a scan 50 M steps
// back reads about nine of each.
constexpr uint32_t kGroupEntries[kIndexTables] = {1024, 32, 1024, 1024, 64, 64};
const char* table_name(IndexTable t);

struct GroupRecord {
  uint64_t offset = 0;
  uint32_t size = 0, raw_size = 0, checksum = 0;
  uint32_t zero = 0;
  uint64_t check = 0;  // group_record_check()
  BlobRef ref() const { return BlobRef{offset, size, raw_size, checksum}; }
};
static_assert(sizeof(GroupRecord) == 32);
// xxh3 of the record's first 24 bytes seeded with its table and group
// number: a record copied to another place is caught too.
uint64_t group_record_check(const GroupRecord& r, IndexTable t, uint64_t group);

// Where a table lies, as the directory head says.
struct TablePlace {
  uint64_t entries = 0;
  uint32_t group_entries = 0;
  uint64_t groups = 0;
  uint64_t index_offset = 0;  // first GroupRecord
  uint64_t entries_in(uint64_t g) const {
    return std::min<uint64_t>(group_entries, entries - g * group_entries);
  }
};

void encode_ref(ByteWriter& w, const BlobRef& r);
bool decode_ref(ByteReader& r, BlobRef& out);
void encode_summary(ByteWriter& w, const ChunkSummary& s);
// False on malformed bytes or a thread index >= thread_count.
bool decode_summary(ByteReader& r, ChunkSummary& s, size_t thread_count);

// A chunk's entry in the chunk table.
struct ChunkBlobs {
  uint32_t steps = 0;
  BlobRef stream, keyframe;
};

}  // namespace ttd
