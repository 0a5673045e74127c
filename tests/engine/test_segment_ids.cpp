// Index version 11 stores a page-map segment's page ids as zigzag
// differences from the previous page's (engine/keyframe_codec.h): ids
// going up and down and far apart round-trip, neighbouring ids cost two
// bytes, and a cut-short segment is refused.
#include <doctest/doctest.h>

#include <vector>

#include "engine/keyframe_codec.h"

using namespace ttd;

TEST_CASE("segment ids: differences round-trip both ways and near ids are short") {
  const uint64_t key = 5, base = key << kSegmentShift;
  std::vector<KeyframePage> pages = {
      {base + 0, 2400000}, {base + 1, 2400001}, {base + 7, 2399990}, {base + 8, 0}, {base + 300, ~0ull >> 1},
      {base + 301, 17},    {base + 511, 2400100}};
  ByteWriter w;
  encode_segment(pages.data(), pages.size(), key, w);
  SegmentPages got;
  REQUIRE(decode_segment(w.data(), w.size(), got));
  REQUIRE(got.size() == pages.size());
  for (size_t i = 0; i < pages.size(); ++i) {
    CHECK(got[i].no == pages[i].no - base);
    CHECK(got[i].id == pages[i].id);
  }
  // 200 neighbouring pages stored one after another: a byte for the page
  // number and one for the id difference, not four for a large id.
  std::vector<KeyframePage> run;
  for (uint64_t i = 0; i < 200; ++i) run.push_back({base + i, 3000000 + i});
  ByteWriter r;
  encode_segment(run.data(), run.size(), key, r);
  CHECK(r.size() <= 2 * run.size() + 8);
  for (size_t cut = 0; cut < w.size(); ++cut) CHECK(!decode_segment(w.data(), cut, got));
}
