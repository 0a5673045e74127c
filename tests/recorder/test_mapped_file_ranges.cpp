// MappedFileRanges: which guest ranges map which bytes of which file.
#include <doctest/doctest.h>

#include "tools/recorder/mapped_file_ranges.h"

using ttd::rec::MappedFileRange;
using ttd::rec::MappedFileRanges;

namespace {
constexpr uint64_t kPage = 0x1000;
}

TEST_CASE("mapped file ranges: the parts that map a file's bytes, widened to pages") {
  MappedFileRanges m;
  m.add({0x10000, 4 * kPage, 2 * kPage, 7, 70, true});   // file pages 2..5
  m.add({0x40000, 2 * kPage, 0, 7, 70, false});          // file pages 0..1
  m.add({0x50000, 2 * kPage, 0, 8, 80, false});          // another file
  CHECK(m.maps(7, 70));
  CHECK_FALSE(m.maps(7, 71));
  // Bytes 0x1ff0..0x2010 touch file pages 1 and 2.
  auto parts = m.overlapping(7, 70, 0x1ff0, 0x20, kPage);
  REQUIRE(parts.size() == 2);
  CHECK(parts[0].addr == 0x10000);
  CHECK(parts[0].offset == 2 * kPage);
  CHECK(parts[0].size == kPage);
  CHECK(parts[0].shared);
  CHECK(parts[1].addr == 0x41000);
  CHECK(parts[1].offset == kPage);
  CHECK(parts[1].size == kPage);
  CHECK(m.overlapping(7, 70, 6 * kPage, 1, kPage).empty());
  CHECK(m.overlapping(7, 70, 0, 0, kPage).empty());
  CHECK(m.of_file(8, 80).size() == 1);
}

TEST_CASE("mapped file ranges: an unmap in the middle splits a range, a new mapping replaces") {
  MappedFileRanges m;
  m.add({0x10000, 4 * kPage, 0, 1, 2, false});
  m.remove(0x11000, kPage);
  auto parts = m.of_file(1, 2);
  REQUIRE(parts.size() == 2);
  CHECK(parts[0].addr == 0x10000);
  CHECK(parts[0].size == kPage);
  CHECK(parts[1].addr == 0x12000);
  CHECK(parts[1].offset == 2 * kPage);
  CHECK(parts[1].size == 2 * kPage);
  CHECK(m.overlapping(1, 2, kPage, 1, kPage).empty());  // the file's page 1 is no longer mapped
  m.add({0x10000, 8 * kPage, 0, 3, 4, true});
  CHECK_FALSE(m.maps(1, 2));
  m.clear();
  CHECK(m.empty());
}
