// The guest's own /proc entries. Opened on the host, /proc/self is the
// recorder's process: its memory map, command line and auxiliary vector,
// not the program's. glibc's pthread_getattr_np reads the main thread's
// stack from /proc/self/maps, gnulib's stack-overflow handler (grep, sort,
// ...) finds the stack there, programs print their own command line; each
// would see the recorder's. These entries are made from what the recorder
// knows of the guest, as Linux makes them from the process.
//
// What is not reproduced: a mapping's file offset, device and inode are
// 0 (the region list keeps only address, size, protection and name); the
// directory task/TID itself and the entries not named below are still the
// recorder's.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "state/machine_state.h"

namespace ttd::rec {

// Where execve put the strings (Linux's mm->arg_start .. env_end) and the
// auxiliary vector it gave (key/value words, AT_NULL included).
struct ProcSelfLayout {
  uint64_t arg_start = 0, arg_end = 0, env_start = 0, env_end = 0;
  std::vector<uint8_t> auxv;
};

enum class ProcSelfEntry { None, Maps, Cmdline, Environ, Auxv, Exe, Fd, FdDir, Comm, Status, Stat, Statm, TaskDir };

struct ProcSelfPath {
  ProcSelfEntry entry = ProcSelfEntry::None;
  int fd = -1;  // Fd: the guest descriptor named
  bool thread_self = false;  // under /proc/thread-self: the calling thread's
  uint64_t tid = 0;          // under task/TID/: that thread's (0: not under task/)
  bool std_link = false;     // /dev/stdin, /dev/stdout or /dev/stderr: a link to fd/N, not fd/N itself
};

// Which entry of the guest's own /proc directory `path` names: /proc/self,
// /proc/thread-self and /proc/<pid> (the guest's pid), then maps, cmdline,
// environ, auxv, exe, comm, fd/N, the fd directory itself, status, stat or
// statm (guest_proc_status.h), the task directory, and the same entries
// under task/TID/ (the caller checks that TID is one of the guest's
// threads). /dev/fd and /dev/fd/N name the fd directory and fd/N, and
// /dev/stdin, /dev/stdout, /dev/stderr fd/0 to fd/2 (Linux's links to them).
// None for anything else (the host answers).
ProcSelfPath proc_self_path(std::string_view path, int64_t pid);

// /proc/self/maps of a process with these regions, in Linux's format.
// Names in brackets are Linux's own ([heap], [stack]); "[anon]" is an
// anonymous mapping, which Linux leaves unnamed.
std::string render_proc_maps(const MemoryRegions& regions);

// What the host's /proc says a descriptor of the recorder's own process
// links to (a file's absolute path, "pipe:[N]", ...); "" if it cannot tell.
std::string host_fd_target(int host_fd);

}  // namespace ttd::rec
