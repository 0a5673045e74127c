// Keyframe page maps in shared segments: the codec round-trips and refuses
// corrupt segments, and a trace that touched thousands of pages gets small
// keyframes that share the segments nothing was written in, with seeks
// still reaching the linear-replay state.
#include <doctest/doctest.h>

#include <map>

#include "engine/cursor.h"
#include "engine/index_file.h"
#include "engine/keyframe_codec.h"
#include "temp_synthetic_trace.h"

using namespace ttd;

TEST_CASE("keyframe segments: round trip, and corrupt segments are refused") {
  const uint64_t key = 5, base = key << kSegmentShift;
  std::vector<KeyframePage> pages = {{base + 0, 7}, {base + 3, 0}, {base + 511, 123456}};
  ByteWriter w;
  encode_segment(pages.data(), pages.size(), key, w);
  SegmentPages back;
  REQUIRE(decode_segment(w.data(), w.size(), back));
  REQUIRE(back.size() == 3);
  CHECK(back[0].no == 0);
  CHECK(back[1].no == 3);
  CHECK(back[2].no == 511);
  CHECK(back[2].id == 123456);

  auto refuse = [&](std::vector<uint8_t> bytes) { return !decode_segment(bytes.data(), bytes.size(), back); };
  CHECK(!refuse({0, 1, 1, 1}));           // the kind byte (0: whole), one page
  CHECK(refuse({0, 2, 4, 1, 0, 1}));      // second page not after the first
  CHECK(refuse({0, 1, 0x80, 0x04, 1}));   // page 512: outside the segment
  CHECK(refuse({0, 0x81, 0x04}));         // 513 pages
  CHECK(refuse({0, 2, 1, 1}));            // cut short
  CHECK(refuse({0, 1, 1, 1, 9}));         // trailing bytes
  CHECK(refuse({2, 1, 1, 1}));            // an unknown kind
  CHECK(refuse({}));                      // empty
}

TEST_CASE("keyframe segments: a keyframe puts its page list together from its segments") {
  MachineState st(arch_desc(ArchId::X86_64));
  st.thread(1, 1);
  st.process(1);
  std::vector<KeyframeSegment> segs = {{2, 0}, {9, 1}};
  ByteWriter kf;
  encode_keyframe(st, [&](uint64_t) -> const std::vector<KeyframeSegment>& { return segs; }, kf);
  std::map<uint64_t, SegmentPages> store = {{0, {{1, 10}, {2, 11}}}, {1, {{0, 12}}}};
  SegmentById source = [&](uint64_t id) -> std::shared_ptr<const SegmentPages> {
    auto it = store.find(id);
    return it == store.end() ? nullptr : std::make_shared<SegmentPages>(it->second);
  };
  KeyframeView view;
  REQUIRE(parse_keyframe(kf.data(), kf.size(), st.arch(), &source, view));
  REQUIRE(view.processes.size() == 1);
  const auto& p = view.processes[0].pages;
  REQUIRE(p.size() == 3);
  CHECK(p[0].no == (2 << kSegmentShift) + 1);
  CHECK(p[1].id == 11);
  CHECK(p[2].no == 9 << kSegmentShift);
  // Without a segment source only threads and mappings are read.
  REQUIRE(parse_keyframe(kf.data(), kf.size(), st.arch(), nullptr, view));
  CHECK(view.processes[0].pages.empty());
  // A segment id the store does not have makes the keyframe corrupt.
  store.erase(1);
  CHECK(!parse_keyframe(kf.data(), kf.size(), st.arch(), &source, view));
}

TEST_CASE("keyframe segments: keyframes of a trace with thousands of pages share what was not written") {
  test::SynthTrace synth = test::make_synthetic(400, 1, 9);
  // 3000 pages written before the first step: six segments' worth.
  const uint64_t heap = 0x40000000;
  synth.initial.push_back({test::SynthEffect::Map, 1, 0, heap, std::vector<uint8_t>(3000 * 4096, 0)});
  for (uint64_t i = 0; i < 3000; ++i)
    synth.initial.push_back({test::SynthEffect::Write, 1, 0, heap + i * 4096, {uint8_t(i), uint8_t(i >> 8), 1}});
  test::TempSynthTrace tt(std::move(synth));
  auto t = Trace::open(tt.path, tt.options(16));
  REQUIRE(t.ok());
  const IndexFile& idx = (*t)->index();
  REQUIRE(idx.chunk_count() == 25);
  // Each keyframe is a register file and a few segments, not 3000 pages
  // (which took at least 3 bytes each).
  const uint32_t regs = (*t)->arch().file_bytes + 32;
  for (const auto& c : idx.load_all_chunks()) CHECK(c.keyframe.raw_size < regs + 200);
  // The heap's segments are stored once; the steps dirty one or two
  // segments (stack, data) per chunk.
  CHECK(idx.segment_count() < 8 + 2 * idx.chunk_count());
  auto ref = test::reference_digests(*tt.synth);
  Cursor c(*t);
  for (uint64_t e : {uint64_t(0), uint64_t(17), uint64_t(399), uint64_t(200), uint64_t(1), uint64_t(400)}) {
    REQUIRE(c.seek(e).ok());
    CHECK_MESSAGE(c.state().digest() == ref[e], "EID ", e);
  }
}
