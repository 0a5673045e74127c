#include "engine/keyframe_codec.h"

#include <algorithm>

namespace ttd {

void encode_keyframe(const MachineState& st, const SegmentListOf& segments_of, ByteWriter& out) {
  out.var(st.threads().size());
  for (const auto& [tid, t] : st.threads()) {
    out.var(tid);
    out.var(t.pid);
    out.u8(t.alive);
    auto b = t.regs.all_bytes();
    out.bytes(b.data(), b.size());
    for (int i = 0; i < 4; ++i) out.fixed64(t.regs.valid_words()[i]);
  }
  out.var(st.processes().size());
  for (const auto& [pid, p] : st.processes()) {
    out.var(pid);
    out.var(p.regions.all().size());
    for (const auto& [start, r] : p.regions.all()) {
      out.var(r.start);
      out.var(r.size);
      out.u8(r.prot);
      out.str(r.name);
    }
    const std::vector<KeyframeSegment>& segs = segments_of(pid);
    out.var(segs.size());
    uint64_t prev = 0;
    for (const auto& sg : segs) {
      out.var(sg.key - prev);
      prev = sg.key;
      out.var(sg.id);
    }
  }
}

bool parse_keyframe(const uint8_t* data, size_t size, const ArchDesc& arch, const SegmentById* segments,
                    KeyframeView& out) {
  ByteReader r(data, size);
  uint64_t nthreads = r.var();
  if (nthreads > size) return false;
  out.threads.resize(nthreads);
  for (auto& t : out.threads) {
    t.tid = r.var();
    t.pid = r.var();
    t.alive = r.u8() != 0;
    t.reg_bytes = r.take(arch.file_bytes);
    for (auto& v : t.valid) v = r.fixed64();
    if (!t.reg_bytes || !r.ok()) return false;
  }
  uint64_t nprocs = r.var();
  if (nprocs > size) return false;
  out.processes.resize(nprocs);
  for (auto& p : out.processes) {
    p.pid = r.var();
    uint64_t nregions = r.var();
    if (nregions > size || !r.ok()) return false;
    p.regions.resize(nregions);
    for (auto& reg : p.regions) {
      reg.start = r.var();
      reg.size = r.var();
      reg.prot = r.u8();
      // Assigned in place: the view is reused seek after seek, and a new
      // string a region was an allocation each.
      const uint64_t n = r.var();
      if (const uint8_t* name = r.take(n)) {
        reg.name.assign(reinterpret_cast<const char*>(name), n);
      } else {
        reg.name.clear();
      }
    }
    uint64_t nsegs = r.var();
    if (nsegs > size || !r.ok()) return false;
    p.pages.clear();
    p.segments.clear();
    uint64_t key = 0;
    for (uint64_t i = 0; i < nsegs; ++i) {
      uint64_t d = r.var();
      if (i > 0 && d == 0) return false;  // keys strictly ascending
      key += d;
      uint64_t id = r.var();
      if (!r.ok() || (key >> (64 - kSegmentShift))) return false;
      p.segments.push_back(KeyframeSegment{key, id});
      if (!segments) continue;
      auto seg = (*segments)(id);
      if (!seg) return false;
      for (const KeyframePage& pg : *seg) p.pages.push_back(KeyframePage{(key << kSegmentShift) | pg.no, pg.id});
    }
  }
  return r.ok() && r.at_end();
}

namespace {
bool same_region(const MemoryRegion& a, const MemoryRegion& b) {
  return a.start == b.start && a.size == b.size && a.prot == b.prot && a.name == b.name;
}

// True if mapping `list` in order into empty regions gives `list` back
// (as a builder writes it): sorted, non-empty, disjoint, none reaching
// past the top of the address space.
bool regions_in_order(const std::vector<MemoryRegion>& list) {
  uint64_t free_from = 0;  // first byte after the previous region
  bool top = false;        // the previous region ended at the top
  for (const auto& r : list) {
    if (top || r.size == 0 || r.start < free_from || r.size - 1 > ~0ull - r.start) return false;
    top = r.size - 1 == ~0ull - r.start;
    free_from = r.start + r.size;
  }
  return true;
}

// Makes `at` hold exactly `list` (regions_in_order), touching only the
// regions that differ: a seek restores the mappings at every keyframe,
// and most of them are those the state has already (rebuilding the map
// was 6 % of a python3 seek).
void update_regions(MemoryRegions& at, const std::vector<MemoryRegion>& list) {
  thread_local std::vector<std::pair<uint64_t, uint64_t>> stale;
  stale.clear();
  auto want = list.begin();
  for (const auto& [start, r] : at.all()) {
    while (want != list.end() && want->start < start) ++want;
    if (want == list.end() || !same_region(*want, r)) stale.emplace_back(r.start, r.size);
  }
  for (const auto& [start, size] : stale) at.unmap(start, size);
  // What is left is in the list; mapping the rest of it removes none of it.
  if (at.all().size() == list.size()) return;
  for (const auto& r : list) {
    auto it = at.all().find(r.start);
    if (it == at.all().end()) at.map(r);
  }
}
}  // namespace

void install_keyframe_threads_and_regions(const KeyframeView& kf, MachineState& st) {
  const ArchDesc& arch = st.arch();
  st.threads().clear();
  for (const auto& t : kf.threads) {
    ThreadState& ts = st.thread(t.tid, t.pid);
    ts.alive = t.alive;
    ts.regs.restore({t.reg_bytes, arch.file_bytes}, t.valid);
  }
  for (const auto& p : kf.processes) {
    MemoryRegions& at = st.process(p.pid).regions;
    if (regions_in_order(p.regions)) {
      update_regions(at, p.regions);
      continue;
    }
    MemoryRegions regions;
    for (const auto& reg : p.regions) regions.map(reg);
    at = std::move(regions);
  }
}

bool install_keyframe(const KeyframeView& kf, const PageById& page, MachineState& st, const InstalledPage& installed) {
  install_keyframe_threads_and_regions(kf, st);
  for (size_t i = 0; i < kf.processes.size(); ++i) {
    const KeyframeProcess& p = kf.processes[i];
    PagedMemory& mem = st.process(p.pid).memory;
    for (const auto& pg : p.pages) {
      auto ptr = page(pg.id);
      if (!ptr) return false;
      if (installed) installed(i, pg, ptr);
      mem.set_page(pg.no, std::move(ptr));
    }
  }
  return true;
}

bool decode_keyframe(const uint8_t* data, size_t size, const PageById& page, const SegmentById* segments,
                     MachineState& out) {
  const ArchDesc& arch = out.arch();
  out = MachineState(arch);
  KeyframeView kf;
  if (!parse_keyframe(data, size, arch, segments, kf)) return false;
  return install_keyframe(kf, page, out);
}

}  // namespace ttd
