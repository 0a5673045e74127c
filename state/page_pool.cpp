#include "state/page_pool.h"

#include <sys/mman.h>

#include <cstdint>
#include <cstring>
#include <mutex>
#include <new>
#include <utility>

// Under AddressSanitizer (the fuzz build) pages come from the ordinary
// heap, so ASan still sees each page's lifetime (a use after release of a
// pooled block would go unnoticed).
#if defined(__SANITIZE_ADDRESS__)
#define TTD_PAGE_POOL 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TTD_PAGE_POOL 0
#endif
#endif
#ifndef TTD_PAGE_POOL
#define TTD_PAGE_POOL 1
#endif

namespace ttd {

namespace {

constexpr size_t kSlabBytes = size_t(2) << 20;  // one transparent huge page on x86-64 and AArch64 (4 KiB base pages)
// A Page plus the shared_ptr control block allocate_shared puts around it,
// rounded up to a cache line.
constexpr size_t kBlockBytes = (sizeof(Page) + 64 + 63) & ~size_t(63);

struct FreeBlock {
  FreeBlock* next;
};

// At the start of each slab; blocks follow it.
struct alignas(64) Slab {
  Slab* prev = nullptr;  // in the pool's list of slabs with room
  Slab* next = nullptr;
  FreeBlock* free = nullptr;  // released blocks
  uint32_t bumped = 0;        // blocks handed out at least once (the rest were never touched)
  uint32_t live = 0;
  bool listed = false;  // in the list of slabs with room
  bool fresh = true;    // as mapped: blocks never handed out are still zero
};

constexpr uint32_t kBlocksPerSlab = uint32_t((kSlabBytes - sizeof(Slab)) / kBlockBytes);
static_assert(kBlocksPerSlab >= 64, "a slab should hold many pages");

class PagePool {
 public:
  // `zero`: the block was never used (the system's zeroed memory).
  void* allocate(bool& zero) {
    std::lock_guard lock(mu_);
    Slab* s = with_room_;
    if (!s) {
      s = spare_ ? std::exchange(spare_, nullptr) : map_slab();
      if (!s) throw std::bad_alloc();
      list(s);
    }
    void* block;
    if (s->free) {
      block = s->free;
      s->free = s->free->next;
      zero = false;
    } else {
      block = reinterpret_cast<uint8_t*>(s + 1) + size_t(s->bumped++) * kBlockBytes;
      zero = s->fresh;
    }
    ++s->live;
    ++live_;
    if (!s->free && s->bumped == kBlocksPerSlab) unlist(s);
    return block;
  }

  void release(void* p) {
    std::lock_guard lock(mu_);
    Slab* s = reinterpret_cast<Slab*>(reinterpret_cast<uintptr_t>(p) & ~(uintptr_t(kSlabBytes) - 1));
    auto* b = static_cast<FreeBlock*>(p);
    b->next = s->free;
    s->free = b;
    --s->live;
    --live_;
    if (s->live == 0) {
      if (s->listed) unlist(s);
      retire(s);
    } else if (!s->listed) {
      list(s);
    }
  }

  PagePoolStats stats() {
    std::lock_guard lock(mu_);
    return {slabs_, live_};
  }

 private:
  Slab* map_slab() {
    // Twice the size, then trimmed to a 2 MiB-aligned slab: huge pages
    // back only aligned ranges.
    const size_t span = 2 * kSlabBytes;
    void* m = ::mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return nullptr;
    const uintptr_t base = reinterpret_cast<uintptr_t>(m);
    const uintptr_t aligned = (base + kSlabBytes - 1) & ~(uintptr_t(kSlabBytes) - 1);
    if (aligned > base) ::munmap(m, aligned - base);
    const uintptr_t end = base + span, slab_end = aligned + kSlabBytes;
    if (end > slab_end) ::munmap(reinterpret_cast<void*>(slab_end), end - slab_end);
    void* slab = reinterpret_cast<void*>(aligned);
#ifdef MADV_HUGEPAGE
    (void)::madvise(slab, kSlabBytes, MADV_HUGEPAGE);  // advice only: without THP the slab is ordinary memory
#endif
    ++slabs_;
    return new (slab) Slab;
  }

  // An empty slab: kept as the spare (a program that frees and allocates
  // around a boundary would otherwise map and unmap a slab each time), or
  // given back.
  void retire(Slab* s) {
    if (!spare_) {
      *s = Slab{};  // every block free again: hand them out from the start
      s->fresh = false;
      spare_ = s;
      return;
    }
    ::munmap(s, kSlabBytes);
    --slabs_;
  }

  void list(Slab* s) {
    s->prev = nullptr;
    s->next = with_room_;
    if (with_room_) with_room_->prev = s;
    with_room_ = s;
    s->listed = true;
  }
  void unlist(Slab* s) {
    if (s->prev) s->prev->next = s->next;
    else with_room_ = s->next;
    if (s->next) s->next->prev = s->prev;
    s->prev = s->next = nullptr;
    s->listed = false;
  }

  std::mutex mu_;
  Slab* with_room_ = nullptr;  // slabs with a free or never-used block, newest first
  Slab* spare_ = nullptr;      // one empty slab kept mapped
  size_t slabs_ = 0, live_ = 0;
};

// Never destroyed: pages may be released by static destructors (shared
// zero pages, caches) after any pool object would have gone.
PagePool& pool() {
  static PagePool* p = new PagePool;
  return *p;
}

// Whether the block of this thread's last page allocation was zero (the
// allocator interface has no other way to say it): make_page then need
// not clear it, and its first touch is the kernel's, once.
thread_local bool t_block_zero = false;

template <class T>
struct PoolAllocator {
  using value_type = T;
  PoolAllocator() = default;
  template <class U>
  PoolAllocator(const PoolAllocator<U>&) {}
  T* allocate(size_t n) {
    if (n * sizeof(T) > kBlockBytes) {
      t_block_zero = false;
      return static_cast<T*>(::operator new(n * sizeof(T)));
    }
    return static_cast<T*>(pool().allocate(t_block_zero));
  }
  void deallocate(T* p, size_t n) {
    if (n * sizeof(T) > kBlockBytes) return ::operator delete(p);
    pool().release(p);
  }
  template <class U>
  bool operator==(const PoolAllocator<U>&) const {
    return true;
  }
};

}  // namespace

#if TTD_PAGE_POOL
std::shared_ptr<Page> make_page() {
  auto p = std::allocate_shared_for_overwrite<Page>(PoolAllocator<Page>());
  if (!t_block_zero) std::memset(p.get(), 0, sizeof(Page));
  return p;
}

std::shared_ptr<Page> make_page_from_bytes(const void* bytes) {
  auto p = std::allocate_shared_for_overwrite<Page>(PoolAllocator<Page>());
  std::memcpy(p.get(), bytes, sizeof(Page));
  return p;
}
#else
std::shared_ptr<Page> make_page() { return std::make_shared<Page>(); }  // value-initialised: all zero

std::shared_ptr<Page> make_page_from_bytes(const void* bytes) {
  auto p = std::make_shared_for_overwrite<Page>();
  std::memcpy(p.get(), bytes, sizeof(Page));
  return p;
}
#endif

std::shared_ptr<Page> make_page_copy(const Page& src) { return make_page_from_bytes(&src); }

PagePoolStats page_pool_stats() { return pool().stats(); }

}  // namespace ttd
