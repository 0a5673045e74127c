// The whole reconstructed machine at one position: threads with their
// register files, processes with their memory and mappings.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "state/arch.h"
#include "state/paged_memory.h"
#include "state/register_file.h"

namespace ttd {

enum Prot : uint8_t { kProtRead = 1, kProtWrite = 2, kProtExec = 4 };

struct MemoryRegion {
  uint64_t start = 0, size = 0;
  uint8_t prot = 0;
  std::string name;  // "heap", "stack", file name, ...
};

// Mappings of one process, kept non-overlapping (a new mapping replaces the
// parts of older ones it covers, as mmap does).
class MemoryRegions {
 public:
  void map(MemoryRegion r);
  void unmap(uint64_t start, uint64_t size);
  void protect(uint64_t start, uint64_t size, uint8_t prot);
  // The region holding addr, or nullptr.
  const MemoryRegion* find(uint64_t addr) const;
  // The first region starting above addr, or nullptr.
  const MemoryRegion* next_after(uint64_t addr) const;
  const std::map<uint64_t, MemoryRegion>& all() const { return regions_; }
  bool operator==(const MemoryRegions& o) const;

 private:
  std::map<uint64_t, MemoryRegion> regions_;  // keyed by start
};

struct ThreadState {
  uint64_t tid = 0;
  uint64_t pid = 0;
  RegisterFile regs;
  bool alive = true;
};

struct ProcessState {
  uint64_t pid = 0;
  PagedMemory memory;
  MemoryRegions regions;
};

class MachineState {
 public:
  MachineState() = default;
  explicit MachineState(const ArchDesc& arch) : arch_(&arch) {}

  const ArchDesc& arch() const { return *arch_; }
  // Returns the thread, creating it (all registers unknown) if new.
  ThreadState& thread(uint64_t tid, uint64_t pid);
  const ThreadState* find_thread(uint64_t tid) const;
  ProcessState& process(uint64_t pid);
  const ProcessState* find_process(uint64_t pid) const;

  std::map<uint64_t, ThreadState>& threads() { return threads_; }
  const std::map<uint64_t, ThreadState>& threads() const { return threads_; }
  std::map<uint64_t, ProcessState>& processes() { return processes_; }
  const std::map<uint64_t, ProcessState>& processes() const { return processes_; }

  // xxh3-64 over everything the state knows (registers with validity,
  // memory pages in address order with validity, mappings). Equal states
  // have equal digests regardless of how they were reached.
  uint64_t digest() const;

  // The last lazy page of any process that could not be read since the
  // faults were cleared (state/paged_memory.h), or nullopt.
  std::optional<Error> memory_fault() const;
  void clear_memory_faults();

 private:
  const ArchDesc* arch_ = nullptr;
  std::map<uint64_t, ThreadState> threads_;
  std::map<uint64_t, ProcessState> processes_;
};

}  // namespace ttd
