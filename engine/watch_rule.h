// When a watched access happens, in one place for every front end.
//
//  - An access hits a watchpoint when its kind fits (a write for Write, a
//    read for Read, either for Access) and it overlaps the watched bytes
//    anywhere: a write that covers part of the range, or a range that two
//    writes each cover a piece of, is a write to it.
//  - Where the stop sits depends on the architecture (ArchDesc::
//    watch_timing), as its debuggers expect: on x86 the trap comes after
//    the access, so a forward run stops after the accessing step and a
//    backward run before it; on aarch64, arm, mips and ppc the trap comes
//    before the access, so the other way round.
//  - watched_bytes(): the watched bytes before the accessing step and with
//    every overlapping write of that step applied (what "old value / new
//    value" shows); written is false for a read.
#pragma once
#include <cstdint>
#include <vector>

#include "engine/motion_types.h"
#include "engine/trace.h"

namespace ttd {

inline bool watch_hits(const Watchpoint& w, uint64_t addr, uint64_t size, bool write) {
  bool kind_ok = w.kind == WatchKind::Access || (write ? w.kind == WatchKind::Write : w.kind == WatchKind::Read);
  return kind_ok && size > 0 && addr < w.addr + w.len && w.addr < addr + size;
}

// The position a run in `dir` stops at for an access made by step access_eid.
inline uint64_t watch_stop_position(const ArchDesc& arch, uint64_t access_eid, Direction dir) {
  bool after = arch.watch_timing == WatchTiming::AfterAccess;
  if (dir == Direction::Forward) return after ? access_eid + 1 : access_eid;
  return after ? access_eid : access_eid + 1;
}

struct WatchedBytes {
  std::vector<uint8_t> before, before_known;  // one flag per byte
  std::vector<uint8_t> after, after_known;
  bool written = false;
};

// `at_access` is the state before step access_eid runs; tid the thread
// that made the access (its process's memory is read). Errors name the EID.
Result<WatchedBytes> watched_bytes(const Trace& trace, const MachineState& at_access, uint64_t access_eid, uint64_t tid,
                                   const Watchpoint& w);

}  // namespace ttd
