// Writable MAP_SHARED mappings of files (docs/recording.md, "Memory").
// The guest's pages are the recorder's copy of the file's bytes, read
// when the mapping is made; the pages the program changed there (a hash a
// page tells which) are written to the file at the points where Linux's
// page cache would let a process that does not share the mapping see them
// at the latest: msync, munmap (or a mapping put over it), execve and the
// end of the process. A page the program did not change is never written,
// so a read-only use of the mapping (SQLite's mmap_size, which writes the
// file with pwrite) leaves the file alone. SQLite's WAL
// index (the -shm file) and programs that update a file through a
// mapping work so. Not reproduced: another process sharing the pages
// (a fork's child gets a copy and its stores stay its own: the fork is
// listed as unsupported; files in /dev/shm, whose point is that sharing,
// are refused, -ENOSYS). A read() of the file, or a new mapping of it,
// first writes the stores back; a write() to it reaches the pages after
// (linux_kernel_file_coherence.cpp).
#pragma once
#include <cstdint>
#include <vector>

#include "tools/recorder/guest_memory.h"

namespace ttd::rec {

class SharedFileMappings {
 public:
  SharedFileMappings() = default;
  SharedFileMappings(const SharedFileMappings&) = delete;
  SharedFileMappings& operator=(const SharedFileMappings&) = delete;
  ~SharedFileMappings();

  // [addr, addr + size) maps the file open on host_fd from `offset`, and
  // holds its bytes now (mem); the table keeps its own duplicate of the
  // descriptor (a mapping outlives close, as in Linux).
  void add(const GuestMemory& mem, uint64_t addr, uint64_t size, int host_fd, uint64_t offset);
  // Writes the pages of [addr, addr + len) that changed since they were
  // mapped or last written back to the files mapped there, up to each
  // file's current end (Linux writes no page past it). With
  // `forget`, that range is no longer written (munmap, a new mapping over
  // it). 0, or -errno of the first write that failed.
  int64_t write_back(const GuestMemory& mem, uint64_t addr, uint64_t len, bool forget);
  // Every mapping, written back and forgotten (execve, the process's end).
  void write_back_all(const GuestMemory& mem);
  // Forgotten without writing (a fork's child: its copy is not the file's).
  void forget_all();
  bool overlaps(uint64_t addr, uint64_t len) const;
  // The pages of [addr, addr + len) hold the file's bytes now (the kernel
  // copied them in after a write to the file): not the program's stores.
  void rehash(const GuestMemory& mem, uint64_t addr, uint64_t len);
  bool empty() const { return maps_.empty(); }

 private:
  struct Mapping {
    uint64_t addr, size, offset;
    int fd;
    std::vector<uint64_t> hashes;  // a page each: what the file holds there, as far as we know
  };
  std::vector<Mapping> maps_;
};

}  // namespace ttd::rec
