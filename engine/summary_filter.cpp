#include "engine/summary_filter.h"

#include <algorithm>

#include "engine/sort_unique.h"
#include "state/paged_memory.h"

namespace ttd {

namespace {
// murmur3's 64-bit finaliser: every key bit reaches every hash bit, so
// neighbouring pcs and lines spread over the filter.
uint64_t mix(uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdull;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ull;
  k ^= k >> 33;
  return k;
}
// Bit i of the kProbes probes (double hashing), scaled onto `bits` without
// a division.
template <class Fn>
void probes(uint64_t key, uint64_t salt, uint64_t bits, Fn&& fn) {
  const uint64_t h = mix((key ^ salt) + 0x9e3779b97f4a7c15ull);
  const uint32_t h1 = uint32_t(h), h2 = uint32_t(h >> 32) | 1u;
  for (uint32_t i = 0; i < KeyFilter::kProbes; ++i) fn((uint64_t(uint32_t(h1 + i * h2)) * bits) >> 32);
}
// A different salt per group: which non-keys hit all probes then differs
// from group to group even where the groups hold the same keys.
uint64_t salt_of(uint64_t seed) { return mix(seed + 0x6a09e667f3bcc909ull); }
}  // namespace

void KeyFilter::build(const std::vector<uint64_t>& keys, uint64_t seed) {
  words_.clear();
  salt_ = salt_of(seed);
  if (keys.empty()) return;
  const uint64_t n = std::min<uint64_t>(keys.size(), kMaxWords * 64 / kBitsPerKey);
  words_.assign(std::max<uint64_t>(1, (n * kBitsPerKey + 63) / 64), 0);
  const uint64_t bits = words_.size() * 64;
  for (uint64_t k : keys) probes(k, salt_, bits, [&](uint64_t b) { words_[b >> 6] |= uint64_t(1) << (b & 63); });
}

bool KeyFilter::may_hold(uint64_t key) const {
  if (words_.empty()) return false;
  const uint64_t bits = words_.size() * 64;
  bool all = true;
  probes(key, salt_, bits, [&](uint64_t b) { all = all && ((words_[b >> 6] >> (b & 63)) & 1); });
  return all;
}

void KeyFilter::encode(ByteWriter& w) const {
  w.var(words_.size());
  if (!words_.empty()) w.bytes(words_.data(), words_.size() * 8);
}

bool KeyFilter::decode(ByteReader& r, uint64_t seed) {
  salt_ = salt_of(seed);
  const uint64_t n = r.var();
  if (!r.ok() || n > kMaxWords || n * 8 > r.remaining()) return false;
  words_.resize(n);
  return n == 0 || r.bytes(words_.data(), n * 8);
}

bool GroupAccessFilter::may_touch(const KeyFilter& f, uint64_t addr, uint64_t len) {
  if (len == 0) return false;
  const uint64_t end = addr + (len - 1);  // last byte, as ChunkSummary computes it
  const uint64_t first = addr >> ChunkSummary::kLineShift, last = end >> ChunkSummary::kLineShift;
  const uint64_t first_page = addr >> kPageShift, last_page = end >> kPageShift;
  if (last_page - first_page >= kMaxProbePages) return true;
  constexpr uint64_t kLinesPerPage = uint64_t(1) << (kPageShift - ChunkSummary::kLineShift);
  uint64_t line_probes = 0;
  for (uint64_t page = first_page; page <= last_page; ++page) {
    // The touched-page key first: an untouched page then costs a false
    // "maybe" only if it and the coarse or a line key all say so.
    if (!f.may_hold(line_page_key(page))) continue;
    if (f.may_hold(page_key(page))) return true;
    const uint64_t lo = std::max(first, page * kLinesPerPage), hi = std::min(last, page * kLinesPerPage + kLinesPerPage - 1);
    line_probes += hi - lo + 1;
    if (line_probes > kMaxProbeLines) return true;
    for (uint64_t line = lo; line <= hi; ++line)
      if (f.may_hold(line_key(line))) return true;
  }
  return false;
}

void SummaryFilterBuilder::add(const ChunkSummary& s) {
  pcs_.insert(pcs_.end(), s.pcs.begin(), s.pcs.end());
  constexpr unsigned kPageOfLine = kPageShift - ChunkSummary::kLineShift;
  auto lines = [](const std::vector<uint64_t>& from, std::vector<uint64_t>& keys) {
    // The list is sorted, so a page's lines are adjacent: its key once
    // per run (repeats across chunks are left to take()).
    uint64_t last_page = ~0ull;
    for (uint64_t line : from) {
      keys.push_back(GroupAccessFilter::line_key(line));
      if (line >> kPageOfLine == last_page) continue;
      last_page = line >> kPageOfLine;
      keys.push_back(GroupAccessFilter::line_page_key(last_page));
    }
  };
  lines(s.lines_written, written_);
  lines(s.lines_read, read_);
  auto coarse = [](const std::vector<uint64_t>& from, std::vector<uint64_t>& keys) {
    for (uint64_t page : from) {
      keys.push_back(GroupAccessFilter::page_key(page));
      keys.push_back(GroupAccessFilter::line_page_key(page));
    }
  };
  coarse(s.pages_written_coarse, written_);
  coarse(s.pages_read_coarse, read_);
}

void SummaryFilterBuilder::take(ByteWriter& pcs, ByteWriter& access, uint64_t group) {
  // Sized by distinct keys: a hot loop repeats its pcs in every chunk.
  auto put = [this, group](std::vector<uint64_t>& keys, ByteWriter& w) {
    sort_unique_u64(keys);
    scratch_.build(keys, group);
    scratch_.encode(w);
    keys.clear();
  };
  put(pcs_, pcs);
  put(written_, access);
  put(read_, access);
}

bool decode_pc_filter(ByteReader& r, GroupPcFilter& out, uint64_t group) { return out.pcs.decode(r, group); }

bool decode_access_filter(ByteReader& r, GroupAccessFilter& out, uint64_t group) {
  return out.written.decode(r, group) && out.read.decode(r, group);
}

}  // namespace ttd
