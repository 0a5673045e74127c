// Makes every checksum of an index file (engine/index_layout.h, version 9
// on) agree with its bytes: header, directory head, group records, table
// groups and the blob references inside them. For the index fuzzer, which
// mutates files and must still reach the decoders behind the checksums,
// and for tests that craft corrupt blobs a real file could carry (a
// crafted file can carry correct checksums).
//
// Table groups are decompressed, each reference's checksum (and, for a
// compressed blob that decompresses, its raw size) recomputed from the
// bytes it points at, and
// the group appended uncompressed at the end of the file, its record
// rewritten. `edit` sees every reference first (table, entry number, the
// ref) and may point it elsewhere, e.g. at a blob the caller appended.
// Never fails: whatever cannot be parsed is left as it is.
#pragma once
#include <snappy.h>
#include <xxhash.h>
#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "engine/blob_codec.h"
#include "engine/byte_codec.h"
#include "engine/index_layout.h"
#include "engine/index_tables.h"

namespace ttd::fuzz {

using RefEdit = std::function<void(IndexTable table, uint64_t entry, BlobRef& ref)>;

namespace detail {
inline bool in_file(const std::vector<uint8_t>& f, uint64_t off, uint64_t n) {
  return off <= f.size() && n <= f.size() - off;
}
// The raw size of a compressed blob (engine/blob_codec.h: codec byte,
// payload) as decompressing it gives, within what the reader allows; 0 if
// it does not decompress.
inline uint64_t decompressed_size(const char* p, size_t size) {
  if (size < 2 || size > 64 * 1024 * 1024) return 0;
  const auto codec = BlobCodec(uint8_t(p[0]));
  if (codec == BlobCodec::Snappy) {
    size_t raw = 0;
    return snappy::GetUncompressedLength(p + 1, size - 1, &raw) && raw <= blob_max_raw_size(codec, size) ? raw : 0;
  }
  if (codec != BlobCodec::Zstd) return 0;
  // Found by decompressing: the frame does not hold its size.
  std::string buf(kBlobHeadroom, '\0');
  buf.append(p, size);
  ZSTD_DCtx* d = ZSTD_createDCtx();
  std::string out(std::min<uint64_t>(blob_max_raw_size(codec, size), 64 * 1024 * 1024), '\0');
  std::memcpy(buf.data(), "\x28\xB5\x2F\xFD", 4);
  size_t got = ZSTD_decompressDCtx(d, out.data(), out.size(), buf.data(), buf.size());
  ZSTD_freeDCtx(d);
  return ZSTD_isError(got) ? 0 : got;
}
inline bool decompress(const char* p, size_t size, size_t raw_size, std::string& out) {
  std::string buf(kBlobHeadroom, '\0');
  buf.append(p, size);
  return decompress_blob(buf.data() + kBlobHeadroom, size, raw_size, out) == nullptr;
}
inline void fix_ref(const std::vector<uint8_t>& f, BlobRef& ref) {
  if (!in_file(f, ref.offset, ref.size)) return;
  const char* p = reinterpret_cast<const char*>(f.data() + ref.offset);
  if (ref.size != ref.raw_size)
    if (uint64_t raw = decompressed_size(p, ref.size); raw > ref.size && raw <= UINT32_MAX) ref.raw_size = uint32_t(raw);
  ref.checksum = blob_checksum(p, ref.size, ref.offset);
}
// Re-encodes a chunk / page / segment group with fixed references; false
// if it does not parse (then it is kept as it is).
inline bool fix_group(std::vector<uint8_t>& f, IndexTable t, uint64_t first_entry, const std::string& raw,
                      const RefEdit& edit, ByteWriter& out) {
  ByteReader r(reinterpret_cast<const uint8_t*>(raw.data()), raw.size());
  std::vector<std::pair<uint64_t, std::vector<BlobRef>>> entries;
  while (!r.at_end()) {
    uint64_t steps = t == IndexTable::Chunks ? r.var() : 0;
    std::vector<BlobRef> refs(t == IndexTable::Chunks ? 2 : 1);
    for (auto& ref : refs)
      if (!decode_ref(r, ref)) return false;
    entries.emplace_back(steps, std::move(refs));
  }
  for (size_t i = 0; i < entries.size(); ++i) {
    if (t == IndexTable::Chunks) out.var(entries[i].first);
    for (auto& ref : entries[i].second) {
      if (edit) edit(t, first_entry + i, ref);
      fix_ref(f, ref);
      encode_ref(out, ref);
    }
  }
  return true;
}
}  // namespace detail

inline void fix_up_index_checksums(std::vector<uint8_t>& f, const RefEdit& edit = {}) {
  using namespace detail;
  if (f.size() < kIndexHeaderSize) return;
  IndexHeader h;
  std::memcpy(&h, f.data(), sizeof h);
  if (in_file(f, h.dir_offset, h.dir_size)) {
    ByteReader r(f.data() + h.dir_offset, h.dir_size);
    (void)r.str();
    TablePlace places[kIndexTables];
    for (auto& tp : places) {
      tp.entries = r.var();
      tp.group_entries = uint32_t(r.var());
      tp.groups = r.var();
      tp.index_offset = r.var();
    }
    for (size_t t = 0; r.ok() && t < kIndexTables; ++t) {
      const TablePlace& tp = places[t];
      for (uint64_t g = 0; g < tp.groups && g < 4096; ++g) {
        const uint64_t at = tp.index_offset + g * sizeof(GroupRecord);
        if (!in_file(f, at, sizeof(GroupRecord))) break;
        GroupRecord rec;
        std::memcpy(&rec, f.data() + at, sizeof rec);
        std::string raw;
        if (in_file(f, rec.offset, rec.size)) {
          const char* p = reinterpret_cast<const char*>(f.data() + rec.offset);
          if (rec.size == rec.raw_size)
            raw.assign(p, rec.size);
          else if (const uint64_t n = decompressed_size(p, rec.size); !n || !decompress(p, rec.size, n, raw))
            raw.clear();
        }
        ByteWriter fixed;
        // Summary and filter groups hold no refs: only their record is fixed.
        const bool holds_refs = IndexTable(t) == IndexTable::Chunks || IndexTable(t) == IndexTable::Pages ||
                                IndexTable(t) == IndexTable::Segments;
        if (holds_refs && !raw.empty() &&
            fix_group(f, IndexTable(t), g * tp.group_entries, raw, edit, fixed)) {
          rec.offset = f.size();
          rec.size = rec.raw_size = uint32_t(fixed.size());
          f.insert(f.end(), fixed.data(), fixed.data() + fixed.size());
        } else {
          BlobRef ref = rec.ref();
          fix_ref(f, ref);
          rec.raw_size = ref.raw_size;
        }
        if (in_file(f, rec.offset, rec.size)) rec.checksum = blob_checksum(f.data() + rec.offset, rec.size, rec.offset);
        rec.zero = 0;
        rec.check = group_record_check(rec, IndexTable(t), g);
        std::memcpy(f.data() + at, &rec, sizeof rec);
      }
    }
    h.dir_checksum = XXH3_64bits(f.data() + h.dir_offset, h.dir_size);
  }
  h.header_checksum = XXH3_64bits(&h, offsetof(IndexHeader, header_checksum));
  std::memcpy(f.data(), &h, sizeof h);
}

}  // namespace ttd::fuzz
