// Which guest ranges map which files (by device and inode), so that the
// kernel can keep the guest's copies of file pages coherent with writes
// to the files as Linux's page cache does (linux_kernel_file_coherence.cpp).
// Knows nothing of guest memory: ranges only.
#pragma once
#include <cstdint>
#include <vector>

namespace ttd::rec {

struct MappedFileRange {
  uint64_t addr = 0, size = 0;  // guest range, page aligned
  uint64_t offset = 0;          // file offset of addr (page aligned)
  uint64_t dev = 0, ino = 0;    // the file
  bool shared = false;          // MAP_SHARED (else private: follows the file until the program stores)
};

class MappedFileRanges {
 public:
  // Replaces whatever was at [r.addr, r.addr + r.size).
  void add(const MappedFileRange& r);
  // Forgets [addr, addr + size), splitting the ranges it cuts.
  void remove(uint64_t addr, uint64_t size);
  void clear() { ranges_.clear(); }
  bool empty() const { return ranges_.empty(); }
  bool maps(uint64_t dev, uint64_t ino) const;
  // The parts of the ranges that map the file's bytes [from, from + len),
  // widened to whole pages, each with its own addr, size and offset.
  std::vector<MappedFileRange> overlapping(uint64_t dev, uint64_t ino, uint64_t from, uint64_t len,
                                           uint64_t page) const;
  // Every range of the file.
  std::vector<MappedFileRange> of_file(uint64_t dev, uint64_t ino) const;

 private:
  std::vector<MappedFileRange> ranges_;
};

// A write to a mapped file under way (LinuxKernel::mapped_write_begins):
// where it starts, a descriptor that reads the file, and the private
// pages that held the file's bytes before it. Closes the descriptor it
// opened.
struct MappedFileWrite {
  uint64_t dev = 0, ino = 0, start = 0;
  int read_fd = -1;
  bool owns_fd = false;
  std::vector<uint64_t> following;  // sorted guest page addresses

  MappedFileWrite() = default;
  MappedFileWrite(MappedFileWrite&& o) noexcept
      : dev(o.dev), ino(o.ino), start(o.start), read_fd(o.read_fd), owns_fd(o.owns_fd),
        following(std::move(o.following)) {
    o.owns_fd = false;
  }
  MappedFileWrite(const MappedFileWrite&) = delete;
  MappedFileWrite& operator=(const MappedFileWrite&) = delete;
  MappedFileWrite& operator=(MappedFileWrite&&) = delete;
  ~MappedFileWrite();
};

}  // namespace ttd::rec
