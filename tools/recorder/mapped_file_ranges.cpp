#include "tools/recorder/mapped_file_ranges.h"

#include <unistd.h>

#include <algorithm>

namespace ttd::rec {

void MappedFileRanges::add(const MappedFileRange& r) {
  remove(r.addr, r.size);
  if (r.size) ranges_.push_back(r);
}

void MappedFileRanges::remove(uint64_t addr, uint64_t size) {
  const uint64_t end = addr + size;
  std::vector<MappedFileRange> kept;
  for (const MappedFileRange& r : ranges_) {
    const uint64_t r_end = r.addr + r.size;
    if (end <= r.addr || r_end <= addr) {
      kept.push_back(r);
      continue;
    }
    if (r.addr < addr) {
      MappedFileRange left = r;
      left.size = addr - r.addr;
      kept.push_back(left);
    }
    if (end < r_end) {
      MappedFileRange right = r;
      right.addr = end;
      right.size = r_end - end;
      right.offset = r.offset + (end - r.addr);
      kept.push_back(right);
    }
  }
  ranges_ = std::move(kept);
}

bool MappedFileRanges::maps(uint64_t dev, uint64_t ino) const {
  return std::any_of(ranges_.begin(), ranges_.end(),
                     [&](const MappedFileRange& r) { return r.dev == dev && r.ino == ino; });
}

std::vector<MappedFileRange> MappedFileRanges::overlapping(uint64_t dev, uint64_t ino, uint64_t from, uint64_t len,
                                                           uint64_t page) const {
  std::vector<MappedFileRange> out;
  if (len == 0) return out;
  const uint64_t lo = from & ~(page - 1);
  const uint64_t hi = from + len > ~uint64_t(0) - page ? ~uint64_t(0) & ~(page - 1) : (from + len + page - 1) & ~(page - 1);
  for (const MappedFileRange& r : ranges_) {
    if (r.dev != dev || r.ino != ino) continue;
    const uint64_t a = std::max(lo, r.offset), b = std::min(hi, r.offset + r.size);
    if (a >= b) continue;
    MappedFileRange part = r;
    part.addr = r.addr + (a - r.offset);
    part.offset = a;
    part.size = b - a;
    out.push_back(part);
  }
  return out;
}

std::vector<MappedFileRange> MappedFileRanges::of_file(uint64_t dev, uint64_t ino) const {
  std::vector<MappedFileRange> out;
  for (const MappedFileRange& r : ranges_)
    if (r.dev == dev && r.ino == ino) out.push_back(r);
  return out;
}

MappedFileWrite::~MappedFileWrite() {
  if (owns_fd) ::close(read_fd);
}

}  // namespace ttd::rec
