// Filters one level above the chunk summaries (index version 11): for each
// summary group (the kGroupEntries[Summaries] chunks stored in one summary
// blob) a Bloom filter of the pcs its chunks executed, and one of the
// memory lines (and coarse pages) they wrote and read, and (version 13)
// every page they touched. A breakpoint or
// watchpoint scan tests the group's filter first and decodes the group's
// summaries only when it says "maybe": on a real trace a scan 50 M steps
// back then decodes a few summary groups instead of ~500 (docs/design.md,
// "Summary filters").
//
// Contract: a filter never says "no" for a key that was added (no false
// negatives); it says "yes" for about 1 % of the keys that were not (false
// positives only cost a decode). The hashes are salted with the summary
// group's number (version 13): the groups of a loop hold the same keys, and
// with the same hashes a false positive of one group was one in every
// group, so a scan for that key read every chunk summary of the trace.
// Memory filters are line-granular (64 bytes; the summaries' 8-byte slots
// are not kept); a range is probed page by page, then line by line in the
// pages whose lines may have been touched: a range of more than
// kMaxProbePages pages, or that needs more than kMaxProbeLines line probes,
// answers "maybe". Stored as two tables
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

// A Bloom filter over 64-bit keys, sized from the number of keys, its
// hashes salted by a seed (the summary group's number) that the decoder is
// given again: the seed is not stored.
class KeyFilter {
 public:
  static constexpr uint32_t kBitsPerKey = 10;
  static constexpr uint32_t kProbes = 4;  // ~1.2 % false positives at 10 bits per key
  // Longest filter a decoder accepts (words): 2^24 keys' worth.
  static constexpr uint64_t kMaxWords = (uint64_t(1) << 24) * kBitsPerKey / 64;

  // Replaces the filter with one holding `keys` (any order, repeats allowed).
  void build(const std::vector<uint64_t>& keys, uint64_t seed);
  // False: the key was certainly not added.
  bool may_hold(uint64_t key) const;
  bool empty() const { return words_.empty(); }
  size_t bytes() const { return words_.size() * 8; }

  void encode(ByteWriter& w) const;
  // False on malformed bytes (a count that does not fit what is left).
  // `seed`: the one the filter was built with.
  bool decode(ByteReader& r, uint64_t seed);

 private:
  std::vector<uint64_t> words_;  // empty: no key was added
  uint64_t salt_ = 0;            // from the seed
};

// The pcs that a summary group's chunks executed.
struct GroupPcFilter {
  KeyFilter pcs;
  bool may_run(uint64_t pc) const { return pcs.may_hold(pc); }
};

// The memory a summary group's chunks wrote and read: the 64-byte lines of
// short accesses and the pages of long ones, as in ChunkSummary, and every
// page touched either way (a range of many lines is ruled out a page at a
// time: one probe per line had a false positive per ~100 lines).
struct GroupAccessFilter {
  static constexpr uint64_t kMaxProbeLines = 64;
  static constexpr uint64_t kMaxProbePages = 64;
  KeyFilter written, read;
  bool may_write(uint64_t addr, uint64_t len) const { return may_touch(written, addr, len); }
  bool may_read(uint64_t addr, uint64_t len) const { return may_touch(read, addr, len); }

  // Keys of a line, of a coarse page and of a touched page (a line of it or
  // all of it; told apart by tag bits above any line or page number).
  static uint64_t line_key(uint64_t line) { return line; }
  static uint64_t page_key(uint64_t page) { return page | (uint64_t(1) << 63); }
  static uint64_t line_page_key(uint64_t page) { return page | (uint64_t(1) << 62); }

 private:
  static bool may_touch(const KeyFilter& f, uint64_t addr, uint64_t len);
};

// Collects the summaries of one summary group as the builder closes its
// chunks, and encodes the group's two filters.
class SummaryFilterBuilder {
 public:
  void add(const ChunkSummary& s);
  // Appends the group's GroupPcFilter to `pcs` and GroupAccessFilter to `access`,
  // salted with `group` (the summary group's number), and starts over.
  void take(ByteWriter& pcs, ByteWriter& access, uint64_t group);

 private:
  std::vector<uint64_t> pcs_, written_, read_;
  KeyFilter scratch_;
};

// `group`: the summary group's number (the filters' seed).
bool decode_pc_filter(ByteReader& r, GroupPcFilter& out, uint64_t group);
bool decode_access_filter(ByteReader& r, GroupAccessFilter& out, uint64_t group);

}  // namespace ttd
