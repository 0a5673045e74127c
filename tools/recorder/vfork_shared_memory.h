// The memory a vfork child shares with its parent (docs/recording.md,
// "Processes"). Natively a CLONE_VM|CLONE_VFORK child writes its parent's
// memory: glibc's posix_spawn reports a failed exec through it, and a
// vfork child runs on its parent's stack. The recorder forks the host
// process instead, so the child writes a copy. The child therefore hashes
// its writable pages when it starts and, before it execs or ends, sends
// every page that changed through the pipe its parent waits on; the
// parent writes them into its own memory as the vfork call's effects, so
// they are in the trace. Mappings the child made or removed are not
// carried back (Linux would share those too).
#pragma once
#include <cstdint>
#include <vector>

#include "tools/recorder/guest_memory.h"

namespace ttd::rec {

struct ChangedPage {
  uint64_t addr = 0;
  std::vector<uint8_t> bytes;  // the whole page, as the child left it
};

class VforkPageHashes {
 public:
  // The hash of every page of `mem` that allows writing (the child's start).
  static VforkPageHashes of(const GuestMemory& mem);

  bool empty() const { return pages_.empty(); }
  // Writes each of those pages whose contents changed since `of` to fd, as
  // [u64 addr][u32 size][bytes]; pages the child unmapped are skipped.
  // False if the pipe refused a write (the parent is gone).
  bool send_changed(const GuestMemory& mem, int fd) const;

 private:
  struct Page {
    uint64_t addr, hash;
  };
  std::vector<Page> pages_;
};

// Reads what send_changed wrote, until end of file (the child exec'd or
// ended). A record cut short by the child's death is dropped. Later records
// of a page replace earlier ones (a child whose exec failed sends again).
std::vector<ChangedPage> read_changed_pages(int fd);

}  // namespace ttd::rec
