// A lazy keyframe restore (KeyframeRestorer::restore_lazy) reads only the
// keyframe's (segment key, segment id) lists, and rebuilds the state in
// place (keeping each memory's allocations): what it leaves must be what a
// restore into an empty state leaves, whatever the state held before —
// other processes and threads, pages, overlays of lazy pages, a fault, an
// eager restore's change log.
#include <doctest/doctest.h>

#include <map>

#include "engine/keyframe_codec.h"
#include "engine/keyframe_restorer.h"

using namespace ttd;

namespace {

// Segments by id: segment s holds pages rel 0, 5 and 511, each filled with
// byte s * 16 + rel % 16.
class FakeSource : public PageSource {
 public:
  Result<std::shared_ptr<Page>> page_at(uint64_t id, uint64_t rel) override {
    ++reads;
    if (id == kBroken) return make_error("fake", "segment cannot be read");
    if (rel != 0 && rel != 5 && rel != 511) return std::shared_ptr<Page>();
    auto p = std::make_shared<Page>();
    std::memset(p->data, int(id * 16 + rel % 16), kPageSize);
    std::memset(p->valid, 0xff, sizeof p->valid);
    return p;
  }
  Result<std::vector<uint64_t>> page_numbers(uint64_t id) override {
    if (id == kBroken) return make_error("fake", "segment cannot be read");
    return std::vector<uint64_t>{0, 5, 511};
  }
  static constexpr uint64_t kBroken = 99;
  int reads = 0;
};

// A keyframe of pid 1 (thread 10) whose page map is segments (key, id).
std::vector<uint8_t> keyframe(const std::vector<KeyframeSegment>& segs, uint64_t rax) {
  MachineState st(arch_desc(ArchId::X86_64));
  st.thread(10, 1).regs.set_u64(0, rax);
  st.process(1).regions.map(MemoryRegion{0x400000, 0x1000000, kProtRead | kProtWrite, "heap"});
  ByteWriter w;
  encode_keyframe(st, [&](uint64_t) -> const std::vector<KeyframeSegment>& { return segs; }, w);
  return std::vector<uint8_t>(w.data(), w.data() + w.size());
}

uint64_t addr(uint64_t key, uint64_t rel) { return ((key << kSegmentShift) | rel) << kPageShift; }

}  // namespace

TEST_CASE("parse_keyframe lists a process's segments with or without a segment source") {
  const auto kf = keyframe({{2, 7}, {9, 8}}, 1);
  KeyframeView view;
  REQUIRE(parse_keyframe(kf.data(), kf.size(), arch_desc(ArchId::X86_64), nullptr, view));
  REQUIRE(view.processes.size() == 1);
  const auto& segs = view.processes[0].segments;
  REQUIRE(segs.size() == 2);
  CHECK(segs[0].key == 2);
  CHECK(segs[0].id == 7);
  CHECK(segs[1].key == 9);
  CHECK(segs[1].id == 8);
  CHECK(view.processes[0].pages.empty());
  // Parsed again into the same view: the list is replaced, not appended to.
  const auto kf2 = keyframe({{4, 1}}, 2);
  REQUIRE(parse_keyframe(kf2.data(), kf2.size(), arch_desc(ArchId::X86_64), nullptr, view));
  REQUIRE(view.processes[0].segments.size() == 1);
  CHECK(view.processes[0].segments[0].key == 4);
}

TEST_CASE("a lazy restore over a used state leaves what a restore into an empty state leaves") {
  const ArchDesc& arch = arch_desc(ArchId::X86_64);
  const auto kf1 = keyframe({{2, 7}, {9, 8}}, 1);
  const auto kf2 = keyframe({{2, 3}, {4, FakeSource::kBroken}, {5, 4}}, 2);
  auto source = std::make_shared<FakeSource>();

  auto fresh_digest = [&](const std::vector<uint8_t>& kf) {
    MachineState st(arch);
    KeyframeRestorer r;
    REQUIRE(r.restore_lazy(kf.data(), kf.size(), source, st));
    return st.digest();
  };

  MachineState st(arch);
  KeyframeRestorer r;
  REQUIRE(r.restore_lazy(kf1.data(), kf1.size(), source, st));
  // Use the state: a read that faults a page in, writes that leave
  // overlays and a fresh page, another process and thread, a fault.
  uint8_t b[8], v[8];
  st.process(1).memory.read(addr(2, 5), b, v, 8);
  const uint8_t w[4] = {1, 2, 3, 4};
  st.process(1).memory.write(addr(9, 0) + 10, w, 4);
  st.process(1).memory.write(addr(300, 0), w, 4);
  st.process(2).memory.write(0x1000, w, 4);
  st.thread(20, 2);
  CHECK(st.process(1).memory.overlay_count() == 1);
  REQUIRE(r.restore_lazy(kf2.data(), kf2.size(), source, st));
  st.process(1).memory.read(addr(4, 0), b, v, 8);  // the broken segment
  CHECK(st.memory_fault().has_value());

  const int reads_before = source->reads;
  REQUIRE(r.restore_lazy(kf1.data(), kf1.size(), source, st));
  CHECK(source->reads == reads_before);  // a restore reads no page
  CHECK(!st.memory_fault().has_value());
  CHECK(st.processes().size() == 1);
  CHECK(st.threads().size() == 1);
  CHECK(st.process(1).memory.overlay_count() == 0);
  CHECK(st.process(1).memory.resident_page_count() == 0);
  CHECK(st.process(1).memory.lazy_group_count() == 2);
  CHECK(st.digest() == fresh_digest(kf1));

  // After an eager restore (which starts a change log) too.
  {
    std::map<uint64_t, SegmentPages> segs = {{3, {{0, 1}}}, {4, {{5, 1}}}, {7, {{1, 1}}}, {8, {{2, 1}}}};
    SegmentById seg_source = [&](uint64_t id) -> std::shared_ptr<const SegmentPages> {
      auto it = segs.find(id);
      return it == segs.end() ? nullptr : std::make_shared<SegmentPages>(it->second);
    };
    auto page = std::make_shared<Page>();
    std::memset(page.get(), 0, sizeof(Page));
    page->data[0] = 42;
    page->valid[0] = 1;
    PageById pages = [&](uint64_t) { return page; };
    REQUIRE(r.restore(kf1.data(), kf1.size(), pages, seg_source, st));
    REQUIRE(st.process(1).memory.change_log_on());
  }
  REQUIRE(r.restore_lazy(kf2.data(), kf2.size(), source, st));
  CHECK(!st.process(1).memory.change_log_on());
  REQUIRE(r.restore_lazy(kf1.data(), kf1.size(), source, st));
  CHECK(st.digest() == fresh_digest(kf1));
}
