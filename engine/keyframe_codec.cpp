#include "engine/keyframe_codec.h"

#include <algorithm>

namespace ttd {

void encode_keyframe(const MachineState& st, const PageListOf& pages_of, ByteWriter& out) {
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
    const std::vector<KeyframePage>& pages = pages_of(pid);
    out.var(pages.size());
    uint64_t prev = 0;
    for (const auto& pg : pages) {
      out.var(pg.no - prev);
      prev = pg.no;
      out.var(pg.id);
    }
  }
}

bool parse_keyframe(const uint8_t* data, size_t size, const ArchDesc& arch, KeyframeView& out) {
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
      reg.name = r.str();
    }
    uint64_t npages = r.var();
    if (npages > size || !r.ok()) return false;
    p.pages.resize(npages);
    uint64_t no = 0;
    for (auto& pg : p.pages) {
      no += r.var();
      pg.no = no;
      pg.id = r.var();
    }
  }
  return r.ok() && r.at_end();
}

void install_keyframe_threads_and_regions(const KeyframeView& kf, MachineState& st) {
  const ArchDesc& arch = st.arch();
  st.threads().clear();
  for (const auto& t : kf.threads) {
    ThreadState& ts = st.thread(t.tid, t.pid);
    ts.alive = t.alive;
    ts.regs.restore({t.reg_bytes, arch.file_bytes}, t.valid);
  }
  for (const auto& p : kf.processes) {
    MemoryRegions regions;
    for (const auto& reg : p.regions) regions.map(reg);
    st.process(p.pid).regions = std::move(regions);
  }
}

bool decode_keyframe(const uint8_t* data, size_t size, const PageById& page, MachineState& out) {
  const ArchDesc& arch = out.arch();
  out = MachineState(arch);
  KeyframeView kf;
  if (!parse_keyframe(data, size, arch, kf)) return false;
  install_keyframe_threads_and_regions(kf, out);
  for (const auto& p : kf.processes) {
    PagedMemory& mem = out.process(p.pid).memory;
    for (const auto& pg : p.pages) {
      auto ptr = page(pg.id);
      if (!ptr) return false;
      mem.set_page(pg.no, std::move(ptr));
    }
  }
  return true;
}

}  // namespace ttd
