// The guest's file mappings are copies of the file's bytes
// (linux_kernel_mm.cpp); on Linux they are the page cache itself, so a
// write(2) to a mapped file shows in every mapping of it at once (LMDB
// and SQLite's mmap_size read through a read-only mapping what they write
// with pwrite). Here a write, pwrite or ftruncate of a file the process
// maps refreshes the mapped pages it covered, as effects of the syscall:
// every page of a shared mapping, and the pages of a private mapping that
// still held the file's bytes before the write (Linux's private pages
// follow the file until the process stores to them). The program's own
// stores through a shared writable mapping reach the file first
// (shared_file_mappings.h), so a read(2) or a new mapping sees them and
// a write over them wins as it would. Not seen: another process's writes,
// and a store through one mapping in another mapping of the same file.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string>

#include "tools/recorder/host_file_reads.h"
#include "tools/recorder/linux_kernel.h"

namespace ttd::rec {

namespace {

// The file's bytes at `offset`, a page of them (zeros past its end).
bool read_file_page(int fd, uint64_t offset, std::vector<uint8_t>& out) {
  std::fill(out.begin(), out.end(), 0);
  return pread_until_end(fd, out, offset) >= 0;
}

}  // namespace

std::optional<MappedFileWrite> LinuxKernel::mapped_write_begins(const GuestFd& f, std::optional<uint64_t> at,
                                                                 uint64_t len) {
  if (mapped_files_.empty() || len == 0 || f.kind != GuestFd::Kind::Host || !f.ino ||
      !mapped_files_.maps(f.dev, f.ino))
    return std::nullopt;
  MappedFileWrite w;
  w.dev = f.dev;
  w.ino = f.ino;
  const int flags = ::fcntl(f.host, F_GETFL);
  if (at) {
    w.start = *at;
  } else if (flags & O_APPEND) {
    struct stat st {};
    if (::fstat(f.host, &st) < 0) return std::nullopt;
    w.start = uint64_t(st.st_size);
  } else {
    const off_t pos = ::lseek(f.host, 0, SEEK_CUR);
    if (pos < 0) return std::nullopt;
    w.start = uint64_t(pos);
  }
  // A write-only descriptor cannot read the pages back: the same file,
  // opened again for reading (its mappings were made readable, so it is).
  if ((flags & O_ACCMODE) == O_WRONLY) {
    w.read_fd = ::open(("/proc/self/fd/" + std::to_string(f.host)).c_str(), O_RDONLY | O_CLOEXEC);
    if (w.read_fd < 0) return std::nullopt;
    w.owns_fd = true;
  } else {
    w.read_fd = f.host;
  }
  const uint64_t page = mem_.page_size();
  std::vector<uint8_t> file_page(page), guest_page(page);
  for (const MappedFileRange& r : mapped_files_.overlapping(w.dev, w.ino, w.start, len, page)) {
    if (r.shared) {
      if (shared_maps_.overlaps(r.addr, r.size)) shared_maps_.write_back(mem_, r.addr, r.size, false);
      continue;
    }
    for (uint64_t a = r.addr; a < r.addr + r.size; a += page)
      if (read_file_page(w.read_fd, r.offset + (a - r.addr), file_page) && mem_.read(a, guest_page) &&
          file_page == guest_page)
        w.following.push_back(a);
  }
  std::sort(w.following.begin(), w.following.end());
  return w;
}

void LinuxKernel::mapped_write_ends(MappedFileWrite& w, int64_t written) {
  const uint64_t page = mem_.page_size();
  std::vector<uint8_t> file_page(page), guest_page(page);
  if (written > 0)
    for (const MappedFileRange& r : mapped_files_.overlapping(w.dev, w.ino, w.start, uint64_t(written), page)) {
      for (uint64_t a = r.addr; a < r.addr + r.size; a += page) {
        if (!r.shared && !std::binary_search(w.following.begin(), w.following.end(), a)) continue;
        if (!read_file_page(w.read_fd, r.offset + (a - r.addr), file_page) || !mem_.read(a, guest_page)) continue;
        const auto diff = std::mismatch(guest_page.begin(), guest_page.end(), file_page.begin());
        if (diff.first == guest_page.end()) continue;
        const size_t first = size_t(diff.first - guest_page.begin());
        size_t last = page;
        while (last > first && guest_page[last - 1] == file_page[last - 1]) --last;
        record_raw_write(a + first, std::span<const uint8_t>(file_page).subspan(first, last - first));
        code_may_have_changed_ = true;
      }
      // What the mapping holds now is the file's, not the program's store.
      if (r.shared && shared_maps_.overlaps(r.addr, r.size)) shared_maps_.rehash(mem_, r.addr, r.size);
    }
}

void LinuxKernel::mapped_read_begins(const GuestFd& f) {
  if (shared_maps_.empty() || f.kind != GuestFd::Kind::Host || !f.ino) return;
  for (const MappedFileRange& r : mapped_files_.of_file(f.dev, f.ino))
    if (r.shared && shared_maps_.overlaps(r.addr, r.size)) shared_maps_.write_back(mem_, r.addr, r.size, false);
}

}  // namespace ttd::rec
