#include "engine/keyframe_codec.h"

#include <algorithm>

namespace ttd {

void encode_keyframe(const MachineState& st, const PageIdOf& id_of, ByteWriter& out) {
  const ArchDesc& arch = st.arch();
  out.var(st.threads().size());
  for (const auto& [tid, t] : st.threads()) {
    out.var(tid);
    out.var(t.pid);
    out.u8(t.alive);
    auto b = t.regs.all_bytes();
    out.bytes(b.data(), b.size());
    for (int i = 0; i < 4; ++i) out.fixed64(t.regs.valid_words()[i]);
  }
  (void)arch;
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
    std::vector<uint64_t> nos;
    nos.reserve(p.memory.pages().size());
    for (const auto& [no, page] : p.memory.pages()) nos.push_back(no);
    std::sort(nos.begin(), nos.end());
    out.var(nos.size());
    uint64_t prev = 0;
    for (uint64_t no : nos) {
      out.var(no - prev);
      prev = no;
      out.var(id_of(pid, no, p.memory.pages().at(no)));
    }
  }
}

bool decode_keyframe(const uint8_t* data, size_t size, const PageById& page, MachineState& out) {
  const ArchDesc& arch = out.arch();
  out = MachineState(arch);
  ByteReader r(data, size);
  uint64_t nthreads = r.var();
  if (nthreads > size) return false;
  for (uint64_t i = 0; i < nthreads && r.ok(); ++i) {
    uint64_t tid = r.var(), pid = r.var();
    ThreadState& t = out.thread(tid, pid);
    t.alive = r.u8() != 0;
    const uint8_t* b = r.take(arch.file_bytes);
    uint64_t valid[4];
    for (auto& v : valid) v = r.fixed64();
    if (!b) return false;
    t.regs.restore({b, arch.file_bytes}, valid);
  }
  uint64_t nprocs = r.var();
  if (nprocs > size) return false;
  for (uint64_t i = 0; i < nprocs && r.ok(); ++i) {
    ProcessState& p = out.process(r.var());
    uint64_t nregions = r.var();
    if (nregions > size) return false;
    for (uint64_t k = 0; k < nregions && r.ok(); ++k) {
      MemoryRegion reg;
      reg.start = r.var();
      reg.size = r.var();
      reg.prot = r.u8();
      reg.name = r.str();
      p.regions.map(std::move(reg));
    }
    uint64_t npages = r.var();
    if (npages > size) return false;
    uint64_t no = 0;
    for (uint64_t k = 0; k < npages && r.ok(); ++k) {
      no += r.var();
      auto pg = page(r.var());
      if (!pg) return false;
      p.memory.set_page(no, std::move(pg));
    }
  }
  return r.ok() && r.at_end();
}

}  // namespace ttd
