// Guest memory shared with other processes (docs/recording.md,
// "Processes"): MAP_SHARED|MAP_ANONYMOUS mappings once the process forks,
// and shared mappings of files in /dev/shm (shm_open, sem_open). Their
// pages are host MAP_SHARED memory, so a fork's child (a host fork of the
// recorder) and the recorded process see each other's stores as natively.
//
// Unicorn sees each piece as MMIO: every guest access is a callback here,
// which (1) takes the CrossProcessLock, so that an emulated atomic
// instruction is atomic against the other emulated processes, and (2)
// while recording, compares what a load returns with what the trace last
// said was there (a shadow copy): a difference is another process's store,
// reported to the observer, which writes it into the trace as a write of
// the step that reads it. So replay shows the values the program read.
//
// Not reproduced: protections (a shared page is readable and writable
// whatever mprotect said), executing code from shared memory, mremap.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <vector>

#include <unicorn/unicorn.h>

#include "state/error.h"
#include "tools/recorder/cross_process_lock.h"

namespace ttd::rec {

class HostSharedMemory {
 public:
  // Another process stored `size` bytes (value, little-endian) at addr
  // before a guest load of them.
  using ChangeObserver = std::function<void(uint64_t addr, uint32_t size, uint64_t value)>;

  explicit HostSharedMemory(uc_engine* uc) : uc_(uc) {}
  ~HostSharedMemory();
  HostSharedMemory(const HostSharedMemory&) = delete;
  HostSharedMemory& operator=(const HostSharedMemory&) = delete;

  // Guest [addr, addr + size) (page aligned, free in Unicorn) becomes the
  // host memory at `host`: size bytes of a host MAP_SHARED mapping, which
  // this object now owns (munmap on unmap). The trace must hold the bytes
  // there now: the shadow starts as a copy of them.
  Status map(uint64_t addr, uint64_t size, uint8_t* host);
  // The shared parts of [addr, addr + size) are unmapped, in Unicorn and
  // on the host.
  Status unmap(uint64_t addr, uint64_t size);
  bool any() const { return !pieces_.empty(); }
  bool overlaps(uint64_t addr, uint64_t size) const;
  // Calls f(guest addr, host pointer, length) for each shared part of the
  // range and g(guest addr, length) for each part that is not, in order.
  void split(uint64_t addr, uint64_t size, const std::function<void(uint64_t, uint8_t*, uint64_t)>& f,
             const std::function<void(uint64_t, uint64_t)>& g) const;
  // The kernel's stores (syscall results, in the trace as its effects):
  // the shadow follows them (on the shared parts of the range).
  void kernel_wrote(uint64_t addr, std::span<const uint8_t> bytes);

  // Recording: keep shadows and report other processes' stores.
  void observe(ChangeObserver observer);
  // A fork's child that is not recorded: no shadows, no reports.
  void stop_observing();
  // Before a fork: the lock exists, so that parent and child share it.
  void prepare_fork();
  void after_fork_in_child() {
    if (lock_) lock_->after_fork();
  }
  // The current instruction's accesses are over (next instruction,
  // syscall, emulation stopped).
  void release() {
    if (lock_) lock_->release();
  }
  bool holding() const { return lock_ && lock_->held(); }
  // Futex wakes on shared words by any of the processes (CrossProcessLock::note_wake).
  void note_wake() {
    prepare_fork();
    lock_->note_wake();
  }
  uint64_t wakes() const { return lock_ ? lock_->wakes() : 0; }
  // The host address behind guest `addr` (nullptr: not shared).
  uint8_t* host_address(uint64_t addr) const;
  // The trace starts again (a followed fork's child): the shadows become
  // what is there now, which its first keyframe holds.
  void resync() {
    if (observer_) observe(observer_);
  }

 private:
  struct Piece {
    HostSharedMemory* owner;
    uint64_t addr, size;
    uint8_t* host;
    std::vector<uint8_t> shadow;  // what the trace says is there (when observed)
  };
  static uint64_t on_read(uc_engine*, uint64_t offset, unsigned size, void* piece);
  static void on_write(uc_engine*, uint64_t offset, unsigned size, uint64_t value, void* piece);
  Status map_piece(std::unique_ptr<Piece> p);
  Piece* piece_at(uint64_t addr) const;  // the piece holding addr, or nullptr
  void hold() {
    if (!lock_) lock_ = std::make_unique<CrossProcessLock>();
    lock_->hold();
  }

  uc_engine* uc_;
  std::map<uint64_t, std::unique_ptr<Piece>> pieces_;  // by guest start
  ChangeObserver observer_;
  std::unique_ptr<CrossProcessLock> lock_;
};

}  // namespace ttd::rec
