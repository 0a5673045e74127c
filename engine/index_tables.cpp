#include "engine/index_tables.h"

#include <xxhash.h>

#include <algorithm>

namespace ttd {

const char* table_name(IndexTable t) {
  switch (t) {
    case IndexTable::Chunks: return "chunk table";
    case IndexTable::Summaries: return "chunk summary table";
    case IndexTable::Pages: return "page table";
    case IndexTable::Segments: return "page-map segment table";
    case IndexTable::PcFilters: return "summary pc filter table";
    case IndexTable::AccessFilters: return "summary access filter table";
  }
  return "table";
}

uint64_t group_record_check(const GroupRecord& r, IndexTable t, uint64_t group) {
  return XXH3_64bits_withSeed(&r, offsetof(GroupRecord, check), (uint64_t(t) << 56) ^ group);
}

void encode_ref(ByteWriter& w, const BlobRef& r) {
  w.var(r.offset);
  w.var(r.size);
  w.var(r.raw_size);
  w.fixed32(r.checksum);
}

bool decode_ref(ByteReader& r, BlobRef& out) {
  out.offset = r.var();
  uint64_t size = r.var(), raw = r.var();
  out.checksum = r.fixed32();
  if (size > UINT32_MAX || raw > UINT32_MAX) return false;
  out.size = uint32_t(size);
  out.raw_size = uint32_t(raw);
  return r.ok();
}

namespace {
template <class T>
void write_list(ByteWriter& w, const std::vector<T>& v) {
  w.var(v.size());
  uint64_t prev = 0;
  for (T x : v) {
    w.var(uint64_t(x) - prev);
    prev = uint64_t(x);
  }
}
template <class T>
bool read_list(ByteReader& r, std::vector<T>& out) {
  uint64_t n = r.var();
  if (n > r.remaining()) return false;  // every element takes a byte at least
  out.resize(n);
  uint64_t prev = 0;
  for (auto& x : out) {
    prev += r.var();
    x = T(prev);
  }
  return r.ok();
}
// n slot masks, one per line just read; a line with no slot is corrupt.
bool read_slots(ByteReader& r, size_t n, std::vector<uint8_t>& out) {
  out.resize(n);
  if (n && !r.bytes(out.data(), n)) return false;
  return std::find(out.begin(), out.end(), uint8_t(0)) == out.end();
}
}  // namespace

void encode_summary(ByteWriter& w, const ChunkSummary& s) {
  write_list(w, s.pcs);
  write_list(w, s.pages_read);
  write_list(w, s.pages_written);
  write_list(w, s.threads);
  write_list(w, s.lines_read);
  w.bytes(s.line_slots_read.data(), s.line_slots_read.size());
  write_list(w, s.lines_written);
  w.bytes(s.line_slots_written.data(), s.line_slots_written.size());
  write_list(w, s.pages_read_coarse);
  write_list(w, s.pages_written_coarse);
  for (uint64_t x : s.regs_written) w.fixed64(x);
}

bool decode_summary(ByteReader& r, ChunkSummary& s, size_t thread_count) {
  bool ok = read_list(r, s.pcs) && read_list(r, s.pages_read) && read_list(r, s.pages_written) &&
            read_list(r, s.threads) && read_list(r, s.lines_read) &&
            read_slots(r, s.lines_read.size(), s.line_slots_read) && read_list(r, s.lines_written) &&
            read_slots(r, s.lines_written.size(), s.line_slots_written) && read_list(r, s.pages_read_coarse) &&
            read_list(r, s.pages_written_coarse);
  for (auto& x : s.regs_written) x = r.fixed64();
  if (!ok || !r.ok()) return false;
  for (uint32_t t : s.threads)
    if (t >= thread_count) return false;
  return true;
}

}  // namespace ttd
