// Page-map segments as stored in the index (engine/keyframe_codec.h cuts a
// page map into segments of 2^kSegmentShift page numbers). Index version
// 14: a segment blob is either whole or a delta against an older version,
// told apart by its first byte:
//   u8 0   whole: var n (at most 512), then n pages, each
//          var  gap from the previous page's number in the segment (the
//               first: its number; later gaps are at least 1)
//          svar id minus the previous page's id (the first: minus 0)
//   u8 1   delta: var own id minus the base's id (at least 1: the base is
//          older, so no chain can loop), var m (1 to 512 changes), then m
//          changes in ascending page number, each
//          var  (gap << 1) | removed   gap as above
//          svar id minus the previous set page's id, unless removed
// A change either sets a page's id (new or replaced) or removes a page the
// base has. Why deltas: a B-tree or an allocator touches a few pages of
// many segments per chunk, and each such segment was stored again whole
// (python3's trace: 221,490 segments of 1.2 KB, 0.16 x the trace file).
// The builder chains at most kMaxSegmentDeltaChain deltas before storing a
// segment whole again, and the reader refuses a longer chain.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/byte_codec.h"

namespace ttd {

constexpr uint64_t kSegmentShift = 9;  // 512 pages: 2 MiB of address space
constexpr uint32_t kMaxSegmentDeltaChain = 8;

struct KeyframePage {
  uint64_t no = 0, id = 0;
};
// A decoded segment: page numbers relative to the segment's first page
// (the same blob may serve several keys), ascending.
using SegmentPages = std::vector<KeyframePage>;

// Encodes n pages of one segment whole, numbers absolute (ascending, all
// in segment `key`).
void encode_segment(const KeyframePage* pages, size_t n, uint64_t key, ByteWriter& out);
// Decodes a whole segment blob; false if it is corrupt or a delta.
bool decode_segment(const uint8_t* data, size_t size, SegmentPages& out);
// Encodes the delta that turns `base` (nb pages) into `pages` (n), both
// absolute numbers in segment `key`; `distance`: own id minus base id.
// False if they are the same (no delta to write; out is then unchanged).
bool encode_segment_delta(const KeyframePage* base, size_t nb, const KeyframePage* pages, size_t n, uint64_t key,
                          uint64_t distance, ByteWriter& out);

struct SegmentHead {
  bool delta = false;
  uint64_t base_id = 0;  // when delta
  size_t body_at = 0;    // offset of what follows the head
};
// Reads a segment blob's head (own_id: its segment id). nullptr, or what
// is wrong (an unknown kind, a base that is not older).
const char* parse_segment_head(const uint8_t* data, size_t size, uint64_t own_id, SegmentHead& out);
// Decodes a whole segment's pages. nullptr, or what is wrong.
const char* decode_segment_whole(const uint8_t* data, size_t size, const SegmentHead& head, SegmentPages& out);
// Applies a delta to its base's pages. nullptr, or what is wrong (numbers
// not ascending or outside the segment, a removed page the base lacks, no
// change, a cut-short change); out is then unspecified.
const char* apply_segment_delta(const uint8_t* data, size_t size, const SegmentHead& head, const SegmentPages& base,
                                SegmentPages& out);
// Checks a stored segment blob without its base (ttd index --verify):
// nullptr, or what is wrong.
const char* check_segment_blob(const uint8_t* data, size_t size, uint64_t own_id);

}  // namespace ttd
