#include "engine/watch_rule.h"

#include <algorithm>

namespace ttd {

Result<WatchedBytes> watched_bytes(const Trace& trace, const MachineState& at_access, uint64_t access_eid, uint64_t tid,
                                   const Watchpoint& w) {
  WatchedBytes out;
  out.before.assign(w.len, 0);
  out.before_known.assign(w.len, 0);
  const ThreadState* th = at_access.find_thread(tid);
  if (const ProcessState* p = th ? at_access.find_process(th->pid) : nullptr)
    p->memory.read(w.addr, out.before.data(), out.before_known.data(), w.len);
  out.after = out.before;
  out.after_known = out.before_known;
  Status s = trace.for_each_step(access_eid, access_eid + 1, [&](const StepRecord& rec) {
    for (const auto& m : rec.mem) {
      if (!m.write || m.value.empty()) continue;
      uint64_t size = std::min<uint64_t>(m.size, m.value.size());
      // Overlap of [m.addr, m.addr + size) and [w.addr, w.addr + w.len),
      // computed without wrapping past the top of the address space.
      uint64_t lo = std::max(m.addr, w.addr);
      uint64_t m_end = m.addr + size < m.addr ? UINT64_MAX : m.addr + size;
      uint64_t w_end = w.addr + w.len < w.addr ? UINT64_MAX : w.addr + w.len;
      uint64_t hi = std::min(m_end, w_end);
      if (lo >= hi) continue;
      for (uint64_t a = lo; a < hi; ++a) {
        out.after[a - w.addr] = m.value[a - m.addr];
        out.after_known[a - w.addr] = 1;
      }
      out.written = true;
    }
    return false;
  });
  if (!s) return s.error();
  return out;
}

}  // namespace ttd
