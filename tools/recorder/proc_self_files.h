// The recorded process's own /proc entries, as the kernel opens them and
// reads them as links (proc_self_files.cpp): /proc/self (and thread-self,
// task/TID, the guest's pid) names the guest, not the recorder. Opened,
// status, stat, statm, maps, cmdline, environ, comm and auxv are memory
// files holding what Linux would show the program (guest_proc_status.h);
// fd/ and task/ are directories listing the guest's descriptors and
// threads; exe and fd/N reopen the program and the descriptor's file.
// Which path names what is guest_proc_files.h's.
//
// Contract: openat and readlink ask open() and link() before the host;
// nullopt means the path is none of these, so the host answers. What is
// shown comes from the kernel's state (pid, comm, threads, signals,
// mappings, descriptors: a LinuxKernel this class is a friend of); the
// class keeps none of its own.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "tools/recorder/guest_dir_listing.h"
#include "tools/recorder/guest_proc_files.h"
#include "tools/recorder/guest_proc_status.h"

namespace ttd::rec {

class LinuxKernel;
struct GuestThread;

class ProcSelfFiles {
 public:
  explicit ProcSelfFiles(LinuxKernel& kernel) : k_(kernel) {}
  ProcSelfFiles(const ProcSelfFiles&) = delete;
  ProcSelfFiles& operator=(const ProcSelfFiles&) = delete;

  // openat of the guest's own /proc entry `p` (`host_flags`: the open
  // flags for the host): its guest fd or -errno; nullopt when `p` names
  // none, so the host opens it.
  std::optional<int64_t> open(const std::string& p, int host_flags);
  // readlink of the guest's /proc/self, thread-self, exe or fd/N: the
  // target, or nullopt when `p` names none of them; `err` set (-ENOENT)
  // for a closed descriptor or a thread the guest does not have.
  std::optional<std::string> link(const std::string& p, int64_t& err);

 private:
  // The thread a /proc entry is for: the calling one under thread-self,
  // TID under task/TID/ (null when TID is no live guest thread), else the
  // main thread.
  const GuestThread* proc_thread(const ProcSelfPath& what);
  // What /proc/self/status, stat and statm show (guest_proc_status.h): the
  // process's (its main thread's signals), or with `per_thread` thread
  // `t`'s (thread-self, task/TID).
  ProcStatusInput proc_status_input(const GuestThread& t, bool per_thread);
  // A guest directory (fd/, task/) backed by the recorder's `host_dir`
  // (for fstat and fchdir), its entries made by `entries` once the
  // descriptor's number is known (fd/ lists itself).
  int64_t open_guest_dir(const char* host_dir, const std::string& p, int host_flags,
                         const std::function<std::vector<GuestDirEntry>()>& entries);

  LinuxKernel& k_;
};

}  // namespace ttd::rec
