// Filters one level above the chunk summaries (index version 11): for each
// summary group (the kGroupEntries[Summaries] chunks stored in one summary
// blob) a Bloom filter of the pcs its chunks executed, and one of the
// memory lines (and coarse pages) they wrote and read. A breakpoint or
// watchpoint scan tests the group's filter first and decodes the group's
// summaries only when it says "maybe": on a real trace a scan 50 M steps
// back then decodes a few summary groups instead of ~500 (docs/design.md,
// "Summary filters").
//
// Contract: a filter never says "no" for a key that was added (no false
// negatives); it says "yes" for about 1 % of the keys that were not (false
// positives only cost a decode). Memory filters are line-granular (64 bytes;
// the summaries' 8-byte slots are not kept): a query of more than
// kMaxProbeLines lines answers "maybe" without probing. Stored as two tables
// (engine/index_tables.h: PcFilters, AccessFilters), entry g covering
// summary group g; a group of filters that cannot be read is no filter at
// all (the caller answers "maybe" and reads the summaries, which report the
// damage).
#pragma once
#include <cstdint>
#include <vector>

#include "engine/byte_codec.h"
#include "engine/index_layout.h"

namespace ttd {

// A Bloom filter over 64-bit keys, sized from the number of keys.
class KeyFilter {
 public:
  static constexpr uint32_t kBitsPerKey = 10;
  static constexpr uint32_t kProbes = 4;  // ~1.2 % false positives at 10 bits per key
  // Longest filter a decoder accepts (words): 2^24 keys' worth.
  static constexpr uint64_t kMaxWords = (uint64_t(1) << 24) * kBitsPerKey / 64;

  // Replaces the filter with one holding `keys` (any order, repeats allowed).
  void build(const std::vector<uint64_t>& keys);
  // False: the key was certainly not added.
  bool may_hold(uint64_t key) const;
  bool empty() const { return words_.empty(); }
  size_t bytes() const { return words_.size() * 8; }

  void encode(ByteWriter& w) const;
  // False on malformed bytes (a count that does not fit what is left).
  bool decode(ByteReader& r);

 private:
  std::vector<uint64_t> words_;  // empty: no key was added
};

// The pcs that a summary group's chunks executed.
struct GroupPcFilter {
  KeyFilter pcs;
  bool may_run(uint64_t pc) const { return pcs.may_hold(pc); }
};

// The memory a summary group's chunks wrote and read: the 64-byte lines of
// short accesses and the pages of long ones, as in ChunkSummary.
struct GroupAccessFilter {
  static constexpr uint64_t kMaxProbeLines = 64;
  KeyFilter written, read;
  bool may_write(uint64_t addr, uint64_t len) const { return may_touch(written, addr, len); }
  bool may_read(uint64_t addr, uint64_t len) const { return may_touch(read, addr, len); }

  // Keys of a line and of a coarse page (told apart by a tag bit above any
  // line or page number).
  static uint64_t line_key(uint64_t line) { return line; }
  static uint64_t page_key(uint64_t page) { return page | (uint64_t(1) << 63); }

 private:
  static bool may_touch(const KeyFilter& f, uint64_t addr, uint64_t len);
};

// Collects the summaries of one summary group as the builder closes its
// chunks, and encodes the group's two filters.
class SummaryFilterBuilder {
 public:
  void add(const ChunkSummary& s);
  // Appends the group's GroupPcFilter to `pcs` and GroupAccessFilter to `access`
  // and starts over.
  void take(ByteWriter& pcs, ByteWriter& access);

 private:
  std::vector<uint64_t> pcs_, written_, read_;
  KeyFilter scratch_;
};

bool decode_pc_filter(ByteReader& r, GroupPcFilter& out);
bool decode_access_filter(ByteReader& r, GroupAccessFilter& out);

}  // namespace ttd
