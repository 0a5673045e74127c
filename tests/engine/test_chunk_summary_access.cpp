// ChunkSummaryBuilder's accesses (engine/chunk_summary_builder.h): the
// inline path for an access within one 8-byte slot and the general path
// (slot-crossing, long, empty accesses) give the lines, slot masks and
// coarse pages a byte-by-byte reference gives.
#include <doctest/doctest.h>

#include <cstdint>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "engine/chunk_summary_builder.h"

using namespace ttd;

namespace {

struct Expected {
  std::vector<uint64_t> lines;
  std::vector<uint8_t> masks;
  std::vector<uint64_t> coarse;
};

// Byte by byte: each byte's slot for accesses of at most kLineAccessMax
// bytes, each byte's page for longer ones.
Expected reference(const std::vector<std::pair<uint64_t, uint64_t>>& accesses) {
  std::map<uint64_t, uint8_t> lines;
  std::set<uint64_t> coarse;
  for (auto [addr, len] : accesses) {
    for (uint64_t i = 0; i < len; ++i) {
      const uint64_t b = addr + i;
      if (len > ChunkSummary::kLineAccessMax) {
        coarse.insert(b >> kPageShift);
      } else {
        const uint64_t slot = b >> ChunkSummary::kSlotShift;
        lines[slot >> 3] |= uint8_t(1u << (slot & 7));
      }
    }
  }
  Expected e;
  for (auto [line, mask] : lines) {
    e.lines.push_back(line);
    e.masks.push_back(mask);
  }
  e.coarse.assign(coarse.begin(), coarse.end());
  return e;
}

}  // namespace

TEST_CASE("chunk summary builder: accesses within a slot, across slots, long and empty") {
  const std::vector<std::pair<uint64_t, uint64_t>> accesses = {
      {0x1000, 8},           // one whole slot
      {0x1008, 1},           // one byte
      {0x100f, 1},           // a slot's last byte
      {0x1017, 2},           // across two slots
      {0x1039, 7},           // a slot's last seven bytes
      {0x103c, 8},           // across two lines
      {0x2000, 0},           // empty: nothing
      {0x3001, 256},         // the longest short access: slots
      {0x5003, 257},         // the shortest long access: pages
      {0x7ff8, 0x3000},      // long, across pages
      {~0ull - 3, 4},        // the top of the address space
      {0x1004, 4},           // repeats
      {0x1000, 8},
  };
  SUBCASE("written") {
    ChunkSummaryBuilder b;
    for (auto [addr, len] : accesses) b.write(addr, len);
    ChunkSummary s;
    b.take(s);
    const Expected e = reference(accesses);
    CHECK(s.lines_written == e.lines);
    CHECK(s.line_slots_written == e.masks);
    CHECK(s.pages_written_coarse == e.coarse);
    CHECK(s.lines_read.empty());
  }
  SUBCASE("read") {
    ChunkSummaryBuilder b;
    for (auto [addr, len] : accesses) b.read(addr, len);
    ChunkSummary s;
    b.take(s);
    const Expected e = reference(accesses);
    CHECK(s.lines_read == e.lines);
    CHECK(s.line_slots_read == e.masks);
    CHECK(s.pages_read_coarse == e.coarse);
    CHECK(s.lines_written.empty());
  }
}
