// The guest's /proc/self/status, /proc/self/stat and /proc/self/statm
// (also under /proc/<pid>/ and /proc/thread-self/), made from what the
// recorder knows of the guest, as Linux makes them from the process
// (fs/proc/array.c, task_mmu.c): its pid, name, threads, signal masks and
// mappings, not the recorder's.
//
// Approximations (docs/recording.md, "/proc"): every mapped page counts as
// resident (VmRSS = VmSize, no page is swapped or shared), the CPU times
// are the step clock's (one nanosecond per step, all user time), the
// process starts at boot time 0, and the lines the guest cannot change
// (Uid, Gid, Groups, Cap*, Seccomp, Mems_allowed, speculation, SigQ's
// limit ...) are the host recorder's own, copied from its
// /proc/self/status. Nothing in them depends on other processes, so the
// text is the same in every recording on one host.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "state/machine_state.h"

namespace ttd::rec {

struct ProcStatusInput {
  std::string name;              // comm (prctl PR_SET_NAME), at most 15 bytes
  uint64_t pid = 0, tid = 0;     // tid: the thread the entry is for (the main thread's = pid)
  uint64_t ppid = 0;
  uint64_t pgrp = 0, session = 0;  // stat's fields 5 and 6
  uint32_t umask = 022;
  uint32_t threads = 1;
  uint64_t sig_pending = 0, shared_pending = 0, blocked = 0, ignored = 0, caught = 0;
  uint32_t queued_signals = 0;   // SigQ's first number (the host's limit is kept)
  uint64_t cpus_allowed = 1;     // what sched_getaffinity tells the guest
  int fd_size = 64;              // FDSize: the fd table's slots
  uint64_t steps = 0;            // the step clock now (CPU time)
  const MemoryRegions* regions = nullptr;
  std::string exe_path;          // regions named so are the program's text (VmExe)
  // stat's address fields (45-51): the heap's start and the argument and
  // environment strings.
  uint64_t start_brk = 0, arg_start = 0, arg_end = 0, env_start = 0, env_end = 0;
};

// Memory sizes in bytes, from the guest's regions.
struct ProcMemory {
  uint64_t size = 0, anon = 0, file = 0, data = 0, stack = 0, exe = 0, lib = 0;
};
ProcMemory proc_memory(const ProcStatusInput& in);

// /proc/self/status. `host_status` is the recorder's own (its lines the
// guest cannot change are kept, in its order, so the format is the host
// kernel's); when empty, Linux 6.1's lines are used.
std::string render_proc_status(const ProcStatusInput& in, std::string_view host_status);
// /proc/self/stat: the 52 fields of Linux's do_task_stat.
std::string render_proc_stat(const ProcStatusInput& in);
// /proc/self/statm: size resident shared text lib data dt, in pages.
std::string render_proc_statm(const ProcStatusInput& in);

}  // namespace ttd::rec
