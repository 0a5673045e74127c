// Damaging an index on purpose, for the tests that check a corrupt part is
// reported (or answered "maybe") by the read that touches it: one byte
// flipped in place, and where a table group's blob lies.
#pragma once
#include <fstream>
#include <string>

#include <doctest/doctest.h>

#include "engine/index_file.h"
#include "engine/index_tables.h"

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

// The record of group `g` of table `t`, read from the file as stored.
inline GroupRecord group_record(const IndexFile& idx, IndexTable t, uint64_t g) {
  GroupRecord r;
  std::ifstream f(idx.path(), std::ios::binary);
  f.seekg(std::streamoff(idx.table(t).index_offset + g * sizeof r));
  f.read(reinterpret_cast<char*>(&r), sizeof r);
  return r;
}

}  // namespace ttd::test
