// Memory syscalls: brk, mmap (anonymous), munmap, mprotect.
#include <cerrno>

#include "tools/recorder/linux_kernel.h"

namespace ttd::rec {

namespace {

constexpr uint64_t kMapFixed = 0x10, kMapAnonymous = 0x20, kMapFixedNoReplace = 0x100000;
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

int64_t LinuxKernel::sys_mmap(const uint64_t a[6], SyscallOutcome& out) {
  uint64_t addr = a[0], len = a[1], prot = a[2], flags = a[3];
  if (len == 0 || prot > 7) return -EINVAL;
  if (!(flags & kMapAnonymous)) {
    // There is no file system in here; say so rather than pretend.
    note_unsupported(current_, "mmap of a file");
    out.unsupported = true;
    return -ENOSYS;
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
  if (!mem_.map(addr, size, uint8_t(prot), "[anon]")) return -ENOMEM;
  effects_.push_back({KernelEffect::Kind::Map, addr, size, uint8_t(prot), "[anon]", {}});
  if (flags & kMapFixed) code_may_have_changed_ = true;
  return int64_t(addr);
}

int64_t LinuxKernel::sys_munmap(uint64_t addr, uint64_t len) {
  if ((addr & (mem_.page_size() - 1)) || len == 0) return -EINVAL;
  uint64_t size = mem_.page_up(len);
  if (!mem_.unmap(addr, size)) return -EINVAL;
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

}  // namespace ttd::rec
