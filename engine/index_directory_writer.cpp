#include "engine/index_directory_writer.h"

#include "engine/blob_writer.h"
#include "engine/index_meta_json.h"

namespace ttd {

namespace {

// Writes one group blob (compressed when that pays) and returns its ref.
bool put_blob(std::FILE* out, uint64_t& pos, const ByteWriter& raw, BlobRef& ref) {
  thread_local BlobCompressor compressor;
  const char* data = reinterpret_cast<const char*>(raw.data());
  size_t len = raw.size();
  if (compressor.compress(raw.data(), raw.size(), blob_codec_for(BlobKind::TableGroup))) {
    data = compressor.stored();
    len = compressor.stored_size();
  }
  ref = BlobRef{pos, uint32_t(len), uint32_t(raw.size()), blob_checksum(data, len, pos)};
  if (len && std::fwrite(data, 1, len, out) != len) return false;
  pos += len;
  return true;
}

bool put_group_index(std::FILE* out, uint64_t& pos, IndexTable t, const std::vector<BlobRef>& groups,
                     TablePlace& place) {
  place.groups = groups.size();
  place.index_offset = pos;
  for (uint64_t g = 0; g < groups.size(); ++g) {
    GroupRecord rec;
    rec.offset = groups[g].offset;
    rec.size = groups[g].size;
    rec.raw_size = groups[g].raw_size;
    rec.checksum = groups[g].checksum;
    rec.check = group_record_check(rec, t, g);
    if (std::fwrite(&rec, 1, sizeof rec, out) != sizeof rec) return false;
    pos += sizeof rec;
  }
  return true;
}

// Cuts a table into groups of kGroupEntries[t] entries, encoded by `put`.
template <class Entry, class Put>
bool put_table(std::FILE* out, uint64_t& pos, IndexTable t, const std::vector<Entry>& entries, Put put,
               TablePlace& place) {
  const uint32_t ge = kGroupEntries[size_t(t)];
  std::vector<BlobRef> groups;
  ByteWriter w;
  for (size_t i = 0; i < entries.size(); i += ge) {
    w.clear();
    for (size_t k = i; k < std::min(entries.size(), i + ge); ++k) put(w, entries[k]);
    BlobRef ref;
    if (!put_blob(out, pos, w, ref)) return false;
    groups.push_back(ref);
  }
  place.entries = entries.size();
  place.group_entries = ge;
  return put_group_index(out, pos, t, groups, place);
}

// The two summary filter tables: one entry per summary group.
bool put_filter_indexes(std::FILE* out, uint64_t& pos, const IndexTablesIn& in, TablePlace* places) {
  for (IndexTable t : {IndexTable::PcFilters, IndexTable::AccessFilters}) {
    TablePlace& p = places[size_t(t)];
    p.entries = in.summary_groups->size();
    p.group_entries = kGroupEntries[size_t(t)];
    const auto& groups = t == IndexTable::PcFilters ? *in.pc_filter_groups : *in.access_filter_groups;
    if (!put_group_index(out, pos, t, groups, p)) return false;
  }
  return true;
}

}  // namespace

bool write_index_tables(std::FILE* out, uint64_t& pos, const IndexTablesIn& in, ByteWriter& head) {
  TablePlace places[kIndexTables];
  auto put_chunk = [](ByteWriter& w, const ChunkBlobs& c) {
    w.var(c.steps);
    encode_ref(w, c.stream);
    encode_ref(w, c.keyframe);
  };
  auto put_ref = [](ByteWriter& w, const BlobRef& r) { encode_ref(w, r); };
  if (!put_table(out, pos, IndexTable::Chunks, *in.chunks, put_chunk, places[0])) return false;
  places[1].entries = in.chunks->size();
  places[1].group_entries = kGroupEntries[1];
  if (!put_group_index(out, pos, IndexTable::Summaries, *in.summary_groups, places[1])) return false;
  if (!put_table(out, pos, IndexTable::Pages, *in.pages, put_ref, places[2])) return false;
  if (!put_table(out, pos, IndexTable::Segments, *in.segments, put_ref, places[3])) return false;
  if (!put_filter_indexes(out, pos, in, places)) return false;
  head.str(meta_to_json(*in.meta));
  for (const TablePlace& p : places) {
    head.var(p.entries);
    head.var(p.group_entries);
    head.var(p.groups);
    head.var(p.index_offset);
  }
  return true;
}

}  // namespace ttd
