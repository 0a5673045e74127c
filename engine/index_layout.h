// On-disk layout of a trace index (.ttdidx):
//
//   [0, 96)        header (IndexHeader), checksummed
//   [96, tables)   data: chunk step streams, keyframes, pages and page-map
//                  segments, each compressed (a codec byte first:
//                  engine/blob_codec.h) or stored as it is, and
//                  checksummed (BlobRef::checksum), referenced by offset
//                  from the tables
//   [tables, dir)  the tables (chunk refs, chunk summaries, page refs,
//                  segment refs, summary-group pc and access filters),
//                  each cut into groups stored as blobs,
//                  then per table its group index: one 32-byte
//                  GroupRecord per group, self-checksummed
//   [dir, end)     directory head: metadata JSON, entry counts, and per
//                  table its group size, group count and group index offset
//                  (engine/index_tables.h)
//
// Opening reads the header and the head only: its cost does not grow with
// the number of chunks, pages or segments. A table group is read (and its
// checksum checked) the first time an entry of it is needed, a blob when it
// is read; `ttd index --verify` checks every byte on request.
//
// The header records the source trace's stamp (engine/source_stamp.h:
// size, mtime, identity, whole-content xxh3) so a changed trace is
// detected, the xxh3 of the trace's absolute path so another trace's index
// is told apart, and the xxh3 of the head. The index is written
// to a temporary file and renamed into place: it is never seen
// half-written. The magic and version come first and stay where they are
// in every version, so an index of another version is recognised as one
// (and rebuilt) rather than misread.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace ttd {

constexpr char kIndexMagic[8] = {'T', 'T', 'D', 'I', 'N', 'D', 'E', 'X'};
// 2: 64-byte line summaries; 3: effects before attributes in steps;
// 4: keyframe page maps in shared segments; 5: unsigned attributes as
// differences from the key's last value; 6: memory accesses as one tag
// byte (kind, size, nearest recent access) and small written values as
// varints, registers 0-127 with the number in the tag; 7: 8-byte slots of
// the lines in chunk summaries; 8: the source stamp holds the trace's
// identity (dev, inode, ctime) and whole-content xxh3 instead of a
// head-and-tail fingerprint, and the trace's path hash (header 80 -> 96
// bytes); 9: per-blob checksums instead of one over the data region, the
// directory cut into lazily read, checksummed groups (opening is O(1));
// 10: page versions stored as deltas against the previous version of their
// page (engine/page_delta_codec.h); 11: two more tables, Bloom filters of
// each summary group's pcs and accessed lines (engine/summary_filter.h);
// step pcs and sizes as a chunk's earlier visits of the pc predict
// (engine/step_pc_memo.h), steps of 1-3 short register effects without a
// length byte, register deltas from the value before the last, page-map
// segment ids as differences, and page chains restarted by a delta against
// their anchor (docs/design.md); 12: a codec byte in front of every
// compressed blob (snappy or zstd, engine/blob_codec.h), zstd for most
// kinds; 13: summary filters salted by the summary group's number, access
// filters also hold the pages of the lines (engine/summary_filter.h); 14:
// page-map segments stored as deltas against the previous version of
// their key, with a kind byte in front (engine/segment_codec.h)
constexpr uint32_t kIndexVersion = 14;
constexpr uint64_t kIndexHeaderSize = 96;

struct IndexHeader {
  char magic[8];
  uint32_t version;
  uint32_t chunk_steps;
  uint64_t source_size;
  uint64_t source_mtime_ns;
  uint64_t source_identity;
  uint64_t source_content_hash;
  uint64_t source_path_hash;  // xxh3 of the trace's absolute path when it was built
  uint64_t dir_offset;
  uint64_t dir_size;
  uint64_t dir_checksum;  // xxh3 of the directory head
  uint64_t unused = 0;    // version 8's data-region checksum
  uint64_t header_checksum;  // xxh3 of the 88 bytes before it
};
static_assert(sizeof(IndexHeader) == kIndexHeaderSize);

struct BlobRef {
  uint64_t offset = 0;
  uint32_t size = 0;      // stored (compressed) size
  uint32_t raw_size = 0;  // decompressed size
  uint32_t checksum = 0;  // blob_checksum() of the stored bytes
};

// The checksum a blob's stored bytes carry; seeded with the offset, so a
// reference to another (valid) blob is caught too.
uint32_t blob_checksum(const void* stored, size_t size, uint64_t offset);

// What a chunk contains, so searches can skip it without decoding.
struct ChunkSummary {
  std::vector<uint64_t> pcs;           // sorted, unique
  std::vector<uint64_t> pages_read;    // page numbers, sorted, unique
  std::vector<uint64_t> pages_written; // sorted, unique
  std::vector<uint32_t> threads;       // thread indexes, sorted, unique
  uint64_t regs_written[4] = {0, 0, 0, 0};
  // Finer than pages, because a hot page (a loop's stack frame, libc
  // globals beside a busy array) would otherwise make every chunk a
  // candidate: the 64-byte lines (addr >> kLineShift) touched by accesses of
  // at most kLineAccessMax bytes. Larger accesses (mappings, syscall
  // buffers) put their pages in the *_coarse lists instead.
  static constexpr uint64_t kLineShift = 6;
  static constexpr uint64_t kLineAccessMax = 256;
  std::vector<uint64_t> lines_read, lines_written;              // sorted, unique
  // Per entry of lines_*: which of the line's eight 8-byte slots were
  // touched (bit k: bytes 8k..8k+7). Variables that share a line with a
  // loop's counters (a stack frame) are told apart by them.
  static constexpr uint64_t kSlotShift = 3;
  std::vector<uint8_t> line_slots_read, line_slots_written;
  std::vector<uint64_t> pages_read_coarse, pages_written_coarse;  // sorted, unique

  bool has_pc(uint64_t pc) const;
  bool has_thread(uint32_t tidx) const;
  // A summary whose group could not be read (checksum, malformed): every
  // question answers "maybe", and the chunk's readers report the error.
  bool corrupt = false;
  // Whether [addr, addr+len) may have been read / written in the chunk
  // (false: certainly not).
  bool reads(uint64_t addr, uint64_t len) const;
  bool writes(uint64_t addr, uint64_t len) const;
};

// A chunk's place and blobs (its summary: IndexFile::summary).
struct ChunkEntry {
  uint64_t first_eid = 0;
  uint32_t steps = 0;
  BlobRef stream;    // encoded steps
  BlobRef keyframe;  // state before first_eid
};

}  // namespace ttd
