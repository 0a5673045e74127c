// Damaging an index on purpose, for the tests that check a corrupt part is
// reported (or answered "maybe") by the read that touches it: one byte
// flipped in place, and where a table group's blob lies.
#pragma once
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "engine/index_file.h"
#include "engine/index_tables.h"
#include "../fuzz/index_checksum_fixup.h"

namespace ttd::test {

// XORs the byte at `offset` of `file` with 0x41, in place.
inline void flip_byte(const std::string& file, uint64_t offset) {
  std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
  char b = 0;
  f.seekg(std::streamoff(offset));
  f.read(&b, 1);
  b ^= 0x41;
  f.seekp(std::streamoff(offset));
  f.write(&b, 1);
  REQUIRE(f.good());
}

inline std::vector<uint8_t> read_file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

// Writes `original` (an index's bytes) to `path` with crafted blobs
// appended, stored as they are: entry id of table t points at blobs[id],
// every checksum fixed up. Returns each crafted entry's offset.
inline std::map<uint64_t, uint64_t> write_with_crafted_blobs(const std::string& path, const std::vector<uint8_t>& original,
                                                           IndexTable t,
                                                           const std::map<uint64_t, std::vector<uint8_t>>& blobs) {
  std::vector<uint8_t> f = original;
  std::map<uint64_t, uint64_t> at;
  for (const auto& [id, b] : blobs) {
    at[id] = f.size();
    f.insert(f.end(), b.begin(), b.end());
  }
  fuzz::fix_up_index_checksums(f, [&](IndexTable table, uint64_t entry, BlobRef& ref) {
    if (table != t || !at.count(entry)) return;
    ref.offset = at[entry];
    ref.size = ref.raw_size = uint32_t(blobs.at(entry).size());
  });
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(f.data()), long(f.size()));
  return at;
}

// The record of group `g` of table `t`, read from the file as stored.
inline GroupRecord group_record(const IndexFile& idx, IndexTable t, uint64_t g) {
  GroupRecord r;
  std::ifstream f(idx.path(), std::ios::binary);
  f.seekg(std::streamoff(idx.table(t).index_offset + g * sizeof r));
  f.read(reinterpret_cast<char*>(&r), sizeof r);
  return r;
}

}  // namespace ttd::test
