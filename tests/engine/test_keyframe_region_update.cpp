// A keyframe restore over a used state updates each process's mappings
// in place (session 20): regions the state already has are kept, the
// others removed or added, and the result is the keyframe's list exactly
// as mapping it into empty regions gives (a list out of order, as a
// crafted index may hold, takes that path itself).
#include <doctest/doctest.h>

#include <vector>

#include "engine/keyframe_codec.h"

// A namespace of its own: CI's unity build compiles it with its suite's other files.
namespace test_keyframe_region_update {

using namespace ttd;

namespace {
const ArchDesc& x64() { return arch_desc(ArchId::X86_64); }

MemoryRegion region(uint64_t start, uint64_t size, uint8_t prot, const char* name) {
  MemoryRegion r;
  r.start = start;
  r.size = size;
  r.prot = prot;
  r.name = name;
  return r;
}

KeyframeView view_with(std::vector<MemoryRegion> regions) {
  KeyframeView kf;
  kf.processes.resize(1);
  kf.processes[0].pid = 7;
  kf.processes[0].regions = std::move(regions);
  return kf;
}

MemoryRegions mapped(const std::vector<MemoryRegion>& list) {
  MemoryRegions m;
  for (const auto& r : list) m.map(r);
  return m;
}
}  // namespace

TEST_CASE("a keyframe's mappings replace the state's, keeping the regions both have") {
  MachineState st(x64());
  MemoryRegions& at = st.process(7).regions;
  at.map(region(0x1000, 0x1000, 5, "/bin/prog"));
  at.map(region(0x4000, 0x2000, 3, "heap"));
  at.map(region(0x9000, 0x1000, 3, "gone"));
  at.map(region(0x7fff0000, 0x10000, 3, "stack"));
  const MemoryRegion* prog = &at.all().at(0x1000);
  const MemoryRegion* stack = &at.all().at(0x7fff0000);

  const std::vector<MemoryRegion> want = {
      region(0x1000, 0x1000, 5, "/bin/prog"), region(0x4000, 0x3000, 3, "heap"),  // heap grew
      region(0x8000, 0x800, 1, "new"), region(0x7fff0000, 0x10000, 3, "stack"),
      region(0xffffffffffff0000ull, 0x10000, 1, "top")};  // up to the last byte
  install_keyframe_threads_and_regions(view_with(want), st);
  CHECK(st.process(7).regions == mapped(want));
  CHECK(st.process(7).regions.all().size() == want.size());
  // Unchanged regions were not rebuilt.
  CHECK(&st.process(7).regions.all().at(0x1000) == prog);
  CHECK(&st.process(7).regions.all().at(0x7fff0000) == stack);

  // The same keyframe again changes nothing.
  install_keyframe_threads_and_regions(view_with(want), st);
  CHECK(st.process(7).regions == mapped(want));

  // To no regions at all.
  install_keyframe_threads_and_regions(view_with({}), st);
  CHECK(st.process(7).regions.all().empty());
}

TEST_CASE("a keyframe's mappings out of order or overlapping are mapped one by one, as before") {
  for (const auto& list : std::vector<std::vector<MemoryRegion>>{
           {region(0x4000, 0x1000, 3, "b"), region(0x1000, 0x1000, 3, "a")},                   // out of order
           {region(0x1000, 0x3000, 3, "a"), region(0x2000, 0x1000, 1, "b")},                   // overlapping
           {region(0x1000, 0, 3, "empty"), region(0x2000, 0x1000, 1, "b")},                    // empty
           {region(0x1000, 0x1000, 3, "a"), region(0x1000, 0x1000, 1, "a again")},             // same start
           {region(0xfffffffffffff000ull, 0x2000, 3, "past the top"), region(0x1000, 1, 1, "x")}}) {
    MachineState st(x64());
    st.process(7).regions.map(region(0x1000, 0x1000, 3, "a"));
    st.process(7).regions.map(region(0x30000, 0x1000, 3, "old"));
    install_keyframe_threads_and_regions(view_with(list), st);
    CHECK(st.process(7).regions == mapped(list));
  }
}

}  // namespace test_keyframe_region_update
