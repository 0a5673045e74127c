// Memory syscalls: brk, mmap (anonymous, and of files: private, shared
// read-only, or shared writable: shared_file_mappings.h), mremap, munmap,
// mprotect, msync, madvise.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "tools/recorder/host_file_reads.h"
#include "tools/recorder/linux_abi_constants.h"
#include "tools/recorder/linux_kernel.h"

namespace ttd::rec {

namespace {

constexpr uint64_t kMapShared = 0x01, kMapFixed = 0x10, kMapAnonymous = 0x20, kMapFixedNoReplace = 0x100000;
// Lowest address mmap hands out (vm.mmap_min_addr).
constexpr uint64_t kMmapMin = 0x10000;

}  // namespace

int64_t LinuxKernel::sys_brk(uint64_t addr) {
  if (addr < cfg_.brk_base) return int64_t(brk_);
  uint64_t want_end = mem_.page_up(addr);
  if (want_end > brk_mapped_end_) {
    uint64_t grow = want_end - brk_mapped_end_;
    if (!mem_.is_free(brk_mapped_end_, grow)) return int64_t(brk_);  // would run into a mapping
    if (!mem_.map(brk_mapped_end_, grow, kProtRead | kProtWrite, "[heap]")) return int64_t(brk_);
    effects_.push_back({KernelEffect::Kind::Map, brk_mapped_end_, grow, kProtRead | kProtWrite, "[heap]", {}});
  } else if (want_end < brk_mapped_end_) {
    uint64_t shrink = brk_mapped_end_ - want_end;
    if (!mem_.unmap(want_end, shrink)) return int64_t(brk_);
    effects_.push_back({KernelEffect::Kind::Unmap, want_end, shrink, 0, {}, {}});
    code_may_have_changed_ = true;
  }
  brk_mapped_end_ = want_end;
  brk_ = addr;
  return int64_t(brk_);
}

int64_t LinuxKernel::sys_mmap(const uint64_t a[6]) {
  uint64_t addr = a[0], len = a[1], prot = a[2], flags = a[3];
  if (len == 0 || prot > 7) return -EINVAL;
  const GuestFd* file = nullptr;
  bool file_writable = false;  // open for reading and writing (a shared mapping of it goes back to it)
  if (!(flags & kMapAnonymous)) {
    file = fds_.get(int(int32_t(a[4])));
    if (!file) return -EBADF;
    if (file->kind != GuestFd::Kind::Host) return -ENODEV;  // the streams are pipes
    if (a[5] & (mem_.page_size() - 1)) return -EINVAL;
    // Stores through a shared mapping reach the file: it must be open for
    // writing too (EACCES, as Linux).
    file_writable = (::fcntl(file->host, F_GETFL) & O_ACCMODE) == O_RDWR;
    if ((flags & kMapShared) && (prot & kProtWrite) && !file_writable) return -EACCES;
  }
  uint64_t size = mem_.page_up(len);
  if (size < len) return -ENOMEM;
  if (flags & (kMapFixed | kMapFixedNoReplace)) {
    if (addr & (mem_.page_size() - 1)) return -EINVAL;
    if ((flags & kMapFixedNoReplace) && !(flags & kMapFixed) && !mem_.is_free(addr, size)) return -EEXIST;
  } else if (addr == 0 || (addr & (mem_.page_size() - 1)) || addr < kMmapMin || !mem_.is_free(addr, size)) {
    // No usable hint: the highest free range below the mmap base, as
    // Linux's top-down allocator picks.
    auto where = mem_.find_free(size, kMmapMin, arch_.mmap_top());
    if (!where) return -ENOMEM;
    addr = *where;
  }
  // POSIX shared memory and semaphores (shm_open, sem_open: Python's
  // multiprocessing) exist to be shared between processes: the host's
  // pages themselves (host_shared_memory.h).
  if (file && (flags & kMapShared) && file_writable && file->path.rfind("/dev/shm/", 0) == 0)
    return mmap_host_shared(addr, size, uint8_t(prot), *file, a[5]);
  // A shared anonymous mapping is named as Linux's /proc/self/maps names
  // it (shmem behind /dev/zero), which a fork then looks for.
  std::string name = file ? file->path : (flags & kMapShared) ? kSharedAnonymousName : "[anon]";
  std::vector<uint8_t> contents;
  struct stat st {};
  if (file) {
    // A copy of the file's bytes (shared read-only mappings too; the
    // process's own writes to the file reach it, linux_kernel_file_coherence.cpp). Past
    // the end of the file the pages stay zero.
    // Only the part the file covers is read (a mapping may be larger).
    if (::fstat(file->host, &st) < 0) return -errno;
    mapped_read_begins(*file);  // the program's stores through another shared mapping of it
    uint64_t in_file = uint64_t(st.st_size) > a[5] ? uint64_t(st.st_size) - a[5] : 0;
    contents.resize(std::min(len, in_file));
    const int64_t got = pread_until_end(file->host, contents, a[5]);
    if (got < 0) return got;
    contents.resize(size_t(got));
  }
  // A shared file mapping this one replaces is written back first (Linux
  // unmaps it).
  if (shared_maps_.overlaps(addr, size)) shared_maps_.write_back(mem_, addr, size, true);
  if (!mem_.map(addr, size, uint8_t(prot), name)) return -ENOMEM;
  effects_.push_back({KernelEffect::Kind::Map, addr, size, uint8_t(prot), name, {}});
  record_nonzero_pages(addr, contents);
  // Writable later too (mprotect) counts: any shared mapping of a file
  // that is open for writing goes back to it.
  if ((flags & kMapShared) && file_writable) shared_maps_.add(mem_, addr, size, file->host, a[5]);
  mapped_files_.remove(addr, size);
  if (file && S_ISREG(st.st_mode))
    mapped_files_.add({addr, size, a[5], uint64_t(st.st_dev), uint64_t(st.st_ino), (flags & kMapShared) != 0});
  if (flags & kMapFixed) code_may_have_changed_ = true;
  return int64_t(addr);
}

int64_t LinuxKernel::mmap_host_shared(uint64_t addr, uint64_t size, uint8_t prot, const GuestFd& file,
                                      uint64_t offset) {
  struct stat st {};
  if (::fstat(file.host, &st) < 0) return -errno;
  // A page past the file's end would be SIGBUS for the recorder itself.
  if (offset + size > mem_.page_up(uint64_t(st.st_size))) {
    note_unsupported(current_, "mmap");
    unsupported_what_ = "a shared mapping of a file in /dev/shm past the file's end";
    return -ENOSYS;
  }
  void* host = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, file.host, off_t(offset));
  if (host == MAP_FAILED) return -errno;
  if (shared_maps_.overlaps(addr, size)) shared_maps_.write_back(mem_, addr, size, true);
  if (!mem_.map_shared(addr, size, prot, file.path, static_cast<uint8_t*>(host))) return -ENOMEM;
  effects_.push_back({KernelEffect::Kind::Map, addr, size, prot, file.path, {}});
  // What the file holds now is in the trace; later stores by other
  // processes reach it as the program reads them.
  const uint64_t in_file = std::min<uint64_t>(size, uint64_t(st.st_size) - offset);
  record_nonzero_pages(addr, {static_cast<const uint8_t*>(host), in_file});
  mapped_files_.remove(addr, size);
  mapped_files_.add({addr, size, offset, uint64_t(st.st_dev), uint64_t(st.st_ino), true});
  return int64_t(addr);
}

void LinuxKernel::record_nonzero_pages(uint64_t addr, std::span<const uint8_t> contents) {
  // The mapping starts zero-filled: only pages with a non-zero byte go
  // into the trace.
  const uint64_t page = mem_.page_size();
  auto nonzero = [&](uint64_t o) {
    uint64_t end = std::min<uint64_t>(o + page, contents.size());
    for (uint64_t i = o; i < end; ++i)
      if (contents[i]) return true;
    return false;
  };
  for (uint64_t off = 0; off < contents.size();) {
    if (!nonzero(off)) {
      off += page;
      continue;
    }
    uint64_t run_end = off + page;
    while (run_end < contents.size() && nonzero(run_end)) run_end += page;
    run_end = std::min<uint64_t>(run_end, contents.size());
    record_raw_write(addr + off, contents.subspan(off, run_end - off));
    off = run_end;
  }
}

int64_t LinuxKernel::sys_mremap(uint64_t old_addr, uint64_t old_len, uint64_t new_len, uint64_t flags,
                                uint64_t new_addr) {
  constexpr uint64_t kMayMove = 1, kFixed = 2, kDontUnmap = 4;
  const uint64_t page = mem_.page_size();
  if ((old_addr & (page - 1)) || (flags & ~(kMayMove | kFixed | kDontUnmap))) return -EINVAL;
  if ((flags & (kFixed | kDontUnmap)) && !(flags & kMayMove)) return -EINVAL;
  const uint64_t old_size = mem_.page_up(old_len), new_size = mem_.page_up(new_len);
  if (new_size == 0 || new_size < new_len || old_size < old_len) return -EINVAL;
  // old_len 0 duplicates a shared mapping in Linux; we have none (EINVAL
  // for private ones, as Linux says).
  if (old_size == 0) return -EINVAL;
  if (shared_maps_.overlaps(old_addr, old_size) || mem_.shared().overlaps(old_addr, old_size)) {
    note_unsupported(current_, "mremap");
    unsupported_what_ = "mremap of a shared mapping (not emulated)";
    return -ENOSYS;
  }
  if (flags & kDontUnmap) {
    note_unsupported(current_, "mremap");
    unsupported_what_ = "mremap with MREMAP_DONTUNMAP (not emulated)";
    return -ENOSYS;
  }
  // The old range must be mapped, with one protection (one VMA in Linux).
  const MemoryRegion* first = mem_.regions().find(old_addr);
  if (!first || !mem_.accessible(old_addr, old_size, 0)) return -EFAULT;
  const uint8_t prot = first->prot;
  for (uint64_t a = old_addr; a < old_addr + old_size;) {
    const MemoryRegion* r = mem_.regions().find(a);
    if (!r || r->prot != prot) return -EFAULT;
    a = r->start + r->size;
  }
  const std::string name = first->name;
  // (A remapped file mapping stops following writes to the file.)
  mapped_files_.remove(old_addr, old_size);
  if (flags & kFixed) {
    if ((new_addr & (page - 1)) || new_addr + new_size < new_addr) return -EINVAL;
    if (new_addr < old_addr + old_size && old_addr < new_addr + new_size) return -EINVAL;  // overlap
    return move_mapping(old_addr, old_size, new_addr, new_size, prot, name);
  }
  if (new_size <= old_size) {
    if (new_size < old_size) {
      if (!mem_.unmap(old_addr + new_size, old_size - new_size)) return -ENOMEM;
      effects_.push_back({KernelEffect::Kind::Unmap, old_addr + new_size, old_size - new_size, 0, {}, {}});
      code_may_have_changed_ = true;
    }
    return int64_t(old_addr);
  }
  const uint64_t grow = new_size - old_size;
  if (old_addr + new_size > old_addr && old_addr + new_size <= arch_.mmap_top() &&
      mem_.is_free(old_addr + old_size, grow)) {
    // In place: new zero pages after the old ones (an anonymous mapping's,
    // and a file mapping's past the end of the file we copied).
    if (!mem_.map(old_addr + old_size, grow, prot, name)) return -ENOMEM;
    effects_.push_back({KernelEffect::Kind::Map, old_addr + old_size, grow, prot, name, {}});
    return int64_t(old_addr);
  }
  if (!(flags & kMayMove)) return -ENOMEM;
  auto where = mem_.find_free(new_size, kMmapMin, arch_.mmap_top());
  if (!where) return -ENOMEM;
  return move_mapping(old_addr, old_size, *where, new_size, prot, name);
}

int64_t LinuxKernel::move_mapping(uint64_t old_addr, uint64_t old_size, uint64_t new_addr, uint64_t new_size,
                                  uint8_t prot, const std::string& name) {
  mapped_files_.remove(new_addr, new_size);
  // Linux moves the page tables; here the new mapping gets a copy of the
  // bytes (in the trace as its memory writes, zero pages left out) and the
  // old one goes.
  std::vector<uint8_t> contents(std::min(old_size, new_size));
  if (!mem_.read(old_addr, contents)) return -EFAULT;
  if (!mem_.map(new_addr, new_size, prot, name)) return -ENOMEM;
  effects_.push_back({KernelEffect::Kind::Map, new_addr, new_size, prot, name, {}});
  record_nonzero_pages(new_addr, contents);
  if (!mem_.unmap(old_addr, old_size)) return -ENOMEM;
  effects_.push_back({KernelEffect::Kind::Unmap, old_addr, old_size, 0, {}, {}});
  code_may_have_changed_ = true;
  return int64_t(new_addr);
}

int64_t LinuxKernel::sys_munmap(uint64_t addr, uint64_t len) {
  if ((addr & (mem_.page_size() - 1)) || len == 0) return -EINVAL;
  uint64_t size = mem_.page_up(len);
  if (shared_maps_.overlaps(addr, size)) shared_maps_.write_back(mem_, addr, size, true);
  if (!mem_.unmap(addr, size)) return -EINVAL;
  mapped_files_.remove(addr, size);
  effects_.push_back({KernelEffect::Kind::Unmap, addr, size, 0, {}, {}});
  code_may_have_changed_ = true;
  return 0;
}

int64_t LinuxKernel::sys_mprotect(uint64_t addr, uint64_t len, uint64_t prot) {
  if ((addr & (mem_.page_size() - 1)) || prot > 7) return -EINVAL;
  uint64_t size = mem_.page_up(len);
  if (size == 0) return 0;
  if (!mem_.protect(addr, size, uint8_t(prot))) return -ENOMEM;
  effects_.push_back({KernelEffect::Kind::Protect, addr, size, uint8_t(prot), {}, {}});
  code_may_have_changed_ = true;
  return 0;
}

int64_t LinuxKernel::sys_msync(uint64_t addr, uint64_t len, uint64_t flags) {
  constexpr uint64_t kAsync = 1, kInvalidate = 2, kSync = 4;
  if ((addr & (mem_.page_size() - 1)) || (flags & ~(kAsync | kInvalidate | kSync)) ||
      ((flags & kAsync) && (flags & kSync)))
    return -EINVAL;
  const uint64_t size = mem_.page_up(len);
  if (size < len) return -ENOMEM;
  if (size && !mem_.accessible(addr, size, 0)) return -ENOMEM;
  return shared_maps_.overlaps(addr, size) ? shared_maps_.write_back(mem_, addr, size, false) : 0;
}

int64_t LinuxKernel::sys_madvise(uint64_t addr, uint64_t len, uint64_t advice) {
  constexpr uint64_t kDontneed = 4;
  const uint64_t page = mem_.page_size();
  if (addr & (page - 1)) return -EINVAL;
  const uint64_t size = mem_.page_up(len);
  if (size < len) return -EINVAL;
  // Other advice changes no byte the program reads (MADV_FREE's pages may
  // keep their contents, as Linux's may).
  if (size == 0 || advice != kDontneed) return 0;
  if (!mem_.accessible(addr, size, 0)) return -ENOMEM;
  // MADV_DONTNEED: the next read of a private anonymous page (heap, stack,
  // an anonymous mapping) finds zeros, which glibc's arenas count on when
  // they grow back over pages they shrank away; a shared file mapping
  // reads the file, which is then what the copy holds. A private file
  // mapping would read the file again: it keeps its copy (not reproduced).
  if (shared_maps_.overlaps(addr, size)) shared_maps_.write_back(mem_, addr, size, false);
  std::vector<uint8_t> bytes(page);
  const std::vector<uint8_t> zeros(page, 0);
  for (uint64_t a = addr; a < addr + size; a += page) {
    const MemoryRegion* r = mem_.regions().find(a);
    if (!r || r->name.empty() || r->name[0] != '[' || shared_maps_.overlaps(a, page)) continue;
    if (!mem_.read(a, bytes)) continue;
    // One write a page, from its first non-zero byte to its last.
    const auto first = std::find_if(bytes.begin(), bytes.end(), [](uint8_t b) { return b != 0; });
    if (first == bytes.end()) continue;
    const auto last = std::find_if(bytes.rbegin(), bytes.rend(), [](uint8_t b) { return b != 0; }).base();
    write_recorded(a + uint64_t(first - bytes.begin()), std::span(zeros).first(size_t(last - first)));
  }
  return 0;
}

}  // namespace ttd::rec
