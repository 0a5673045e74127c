// A directory whose entries the recorder makes up: the guest's
// /proc/self/fd (its own descriptors, not the recorder's) and
// /proc/self/task (its own threads). getdents64
// reads it in Linux's struct linux_dirent64 records, lseek rewinds or
// seeks to a d_off it gave, as for any directory.
//
// Contract: entries are a snapshot taken when the directory is opened
// (Linux lists the table at each read); "." and ".." come first. Shared by
// dups, as Linux shares a directory's position.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace ttd::rec {

struct GuestDirEntry {
  std::string name;
  uint64_t ino = 0;
  uint8_t type = 0;  // DT_*
};

class GuestDirListing {
 public:
  explicit GuestDirListing(std::vector<GuestDirEntry> entries) : entries_(std::move(entries)) {}

  // Up to `len` bytes of records from the current position on, which
  // moves past them; EINVAL (as a negative errno) when the next record
  // does not fit in `len`, an empty vector at the end.
  int64_t read(uint64_t len, std::vector<uint8_t>& out);
  // lseek: SEEK_SET to a record's d_off (0: the start), SEEK_CUR by 0.
  int64_t seek(int64_t offset, int whence);

 private:
  std::vector<GuestDirEntry> entries_;
  size_t pos_ = 0;
};

// The entries of /proc/self/fd for descriptors `fds`: "." and "..", then
// each number as a symbolic link (DT_LNK), as procfs lists them.
std::vector<GuestDirEntry> proc_fd_entries(const std::vector<int>& fds);
// The entries of /proc/self/task for threads `tids`: "." and "..", then
// each thread id as a directory.
std::vector<GuestDirEntry> proc_task_entries(const std::vector<uint64_t>& tids);
// The host's /proc as the recorded process lists it: the recorder's own
// pid directory is named by the guest's pid (a host process that has the
// guest's pid is left out: /proc/<that pid> is the guest's), so ps, pgrep
// and top find the program, and not the recorder.
std::vector<GuestDirEntry> proc_root_entries(uint64_t host_pid, uint64_t guest_pid);

}  // namespace ttd::rec
