// The guest's address space: Unicorn's mappings plus the bookkeeping the
// kernel emulation and the keyframe need (names, protections, free ranges).
// Every change goes through here so Unicorn and the region list agree.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include <unicorn/unicorn.h>

#include "state/error.h"
#include "state/machine_state.h"
#include "tools/recorder/host_shared_memory.h"

namespace ttd::rec {

class GuestMemory {
 public:
  GuestMemory(uc_engine* uc, uint64_t page_size) : uc_(uc), page_(page_size), shared_(uc) {}

  uint64_t page_size() const { return page_; }
  uint64_t page_down(uint64_t a) const { return a & ~(page_ - 1); }
  uint64_t page_up(uint64_t a) const { return (a + page_ - 1) & ~(page_ - 1); }

  // Maps zero-filled pages [addr, addr+size) (page aligned), replacing
  // whatever was mapped there before, as mmap(MAP_FIXED) does.
  Status map(uint64_t addr, uint64_t size, uint8_t prot, std::string name);
  // Maps [addr, addr+size) onto `host`, size bytes of host MAP_SHARED
  // memory (owned from now on), replacing what was mapped there: memory
  // shared with other processes (host_shared_memory.h). The trace must
  // already hold its bytes.
  Status map_shared(uint64_t addr, uint64_t size, uint8_t prot, std::string name, uint8_t* host);
  // The mapped range [addr, addr+size), private so far, becomes shared
  // with the processes forked from now on, keeping its bytes (a
  // MAP_SHARED|MAP_ANONYMOUS mapping at a fork).
  Status make_shared(uint64_t addr, uint64_t size);
  HostSharedMemory& shared() { return shared_; }
  const HostSharedMemory& shared() const { return shared_; }
  // Unmaps the mapped parts of the range; unmapped holes are fine (munmap).
  Status unmap(uint64_t addr, uint64_t size);
  // Changes protection; fails if part of the range is not mapped (mprotect).
  Status protect(uint64_t addr, uint64_t size, uint8_t prot);

  // Highest page-aligned free range of `size` bytes ending at or below
  // `below` and starting at or above `above`.
  std::optional<uint64_t> find_free(uint64_t size, uint64_t above, uint64_t below) const;
  // True if no byte of the range is mapped.
  bool is_free(uint64_t addr, uint64_t size) const;
  // True if every byte of the range is mapped and allows `prot`.
  bool accessible(uint64_t addr, uint64_t size, uint8_t prot) const;

  // Raw access that ignores protections (the loader and the kernel).
  bool read(uint64_t addr, std::span<uint8_t> out) const;
  bool write(uint64_t addr, std::span<const uint8_t> bytes);
  // XXH3 of the page at `addr`, read into `page` (page_size() bytes, left
  // holding them); nullopt when it is not mapped. What a change since an
  // earlier hash is told by (vfork_shared_memory.h, shared_file_mappings.h).
  std::optional<uint64_t> page_hash(uint64_t addr, std::span<uint8_t> page) const;

  const MemoryRegions& regions() const { return regions_; }
  // Start of the first range ever mapped: Unicorn gave it RAM offset 0
  // (offsets follow the order of uc_mem_map calls; process_loader.cpp maps
  // the stack first for that reason). Empty before any mapping.
  std::optional<uint64_t> first_mapped() const { return first_mapped_; }

 private:
  uc_engine* uc_;
  uint64_t page_;
  MemoryRegions regions_;
  std::optional<uint64_t> first_mapped_;
  HostSharedMemory shared_;
};

}  // namespace ttd::rec
