// Sparse paged memory of one process with per-byte validity. Pages are
// shared copy-on-write: copying a PagedMemory (or installing pages from a
// keyframe) shares them, and the first write to a shared page copies it.
//
// Pages may also be lazy (install_lazy): groups of page numbers whose pages
// a PageSource (state/page_source.h) supplies on first access. Every access
// — read, write, fill, invalidate, pages(), digests — sees the same bytes as
// if they had been installed eagerly; a page the source cannot supply reads
// as unknown and is reported by fault(). Because reads may fault pages in,
// a PagedMemory with lazy pages must not be used from two threads at once.
//
// Writes, partial fills and invalidations of a lazy page that has not been
// read do not read it: they go to an *overlay* (the bytes written, the
// bytes made unknown), merged over the source's page when something first
// reads it. A replay from a keyframe thus reads no page (a seek used to
// spend three quarters of its time fetching the pages its replay wrote).
// A page whose source fails reads as unknown, overlay included, until a
// later read succeeds.
#pragma once
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "state/error.h"
#include "state/page_source.h"

namespace ttd {

constexpr uint64_t kPageShift = 12;
constexpr uint64_t kPageSize = uint64_t(1) << kPageShift;

struct Page {
  uint8_t data[kPageSize];
  uint64_t valid[kPageSize / 64];  // bit i of valid[i/64]: byte i is known
  // Unknown bytes always hold 0 so that equal contents compare and hash equal.
  bool all_valid() const;
  bool none_valid() const;
};
using PagePtr = std::shared_ptr<const Page>;

class PagedMemory {
 public:
  PagedMemory() = default;
  // Copies share pages; the write cache never crosses objects.
  PagedMemory(const PagedMemory& o)
      : pages_(o.pages_), overlays_(o.overlays_), lazy_(o.lazy_), source_(o.source_), fault_(o.fault_) {}
  PagedMemory(PagedMemory&& o) noexcept
      : pages_(std::move(o.pages_)),
        overlays_(std::move(o.overlays_)),
        lazy_(std::move(o.lazy_)),
        source_(std::move(o.source_)),
        fault_(std::move(o.fault_)),
        log_on_(o.log_on_),
        log_overflow_(o.log_overflow_),
        changed_(std::move(o.changed_)) {
    o.clear();
  }
  PagedMemory& operator=(const PagedMemory& o) {
    if (this != &o) {
      pages_ = o.pages_;
      overlays_ = o.overlays_;
      lazy_ = o.lazy_;
      source_ = o.source_;
      fault_ = o.fault_;
      forget_cached();
      log_overflow_ = log_on_;  // every page may have changed
    }
    return *this;
  }
  PagedMemory& operator=(PagedMemory&& o) noexcept {
    if (this != &o) {
      pages_ = std::move(o.pages_);
      overlays_ = std::move(o.overlays_);
      lazy_ = std::move(o.lazy_);
      source_ = std::move(o.source_);
      fault_ = std::move(o.fault_);
      forget_cached();
      log_on_ = o.log_on_;
      log_overflow_ = o.log_overflow_;
      changed_ = std::move(o.changed_);
      o.clear();
    }
    return *this;
  }

  // Writes known bytes.
  void write(uint64_t addr, const uint8_t* src, uint64_t len) {
    // Replay's hot case: a short store into the page written last.
    uint64_t off = addr & (kPageSize - 1);
    if (len <= 64 && off + len <= kPageSize) {
      if (Page* p = cached_writable(addr >> kPageShift)) {
        if (len == 8)
          std::memcpy(p->data + off, src, 8);  // a 64-bit store, without a library call
        else
          std::memcpy(p->data + off, src, len);
        mark_valid(*p, off, len);
        return;
      }
    }
    write_slow(addr, src, len);
  }
  // Sets the validity bits of [off, off+n) in one page, n <= 64.
  static void mark_valid(Page& p, uint64_t off, uint64_t n) {
    if (n == 0) return;
    uint64_t w = off >> 6, b = off & 63;
    auto low_bits = [](uint64_t k) { return k >= 64 ? ~0ull : (1ull << k) - 1; };
    p.valid[w] |= low_bits(n) << b;
    if (b + n > 64) p.valid[w + 1] |= low_bits(b + n - 64);
  }
  // Sets len bytes to a known value (used for zero-filled mappings).
  void fill(uint64_t addr, uint64_t len, uint8_t value);
  // Makes bytes unknown; pages that become entirely unknown are dropped.
  void invalidate(uint64_t addr, uint64_t len);
  // Copies len bytes to dst; valid[i] (if not null) says whether byte i is
  // known. Returns the number of known bytes. Unknown bytes read as 0.
  uint64_t read(uint64_t addr, uint8_t* dst, uint8_t* valid, uint64_t len) const;
  // read() for the front ends (debugger, DAP, Python): a lazy page of the
  // range that cannot be read is an error naming the file, offset and
  // address, not silently unknown bytes. Clears fault() first.
  Status read_checked(uint64_t addr, uint8_t* dst, uint8_t* valid, uint64_t len) const;
  // True if every byte of [addr, addr+len) is known.
  bool all_known(uint64_t addr, uint64_t len) const;

  // Page-level access for keyframes and digests. Both read every lazy page
  // first (what a whole-memory walk needs anyway).
  const std::unordered_map<uint64_t, std::shared_ptr<Page>>& pages() const {
    if (!lazy_.empty()) materialise_all();
    return pages_;
  }
  void set_page(uint64_t page_number, std::shared_ptr<Page> page);
  void clear() {
    pages_.clear();
    overlays_.clear();
    lazy_.clear();
    forget_cached();
    changed_.clear();
    log_overflow_ = log_on_;  // every page changed
  }
  size_t page_count() const { return pages().size(); }

  // Lazy pages. The source serves every lazy group installed afterwards.
  void set_page_source(std::shared_ptr<PageSource> source) { source_ = std::move(source); }
  // Replaces the whole memory by n lazy groups (sorted by key, keys
  // distinct); nothing is read until a page is accessed.
  void install_lazy(const LazyGroupRef* groups, size_t n);
  // Reads every lazy page now; pages that cannot be read stay lazy (fault()).
  void materialise_all() const;
  // Pages held in memory (read, written or created, overlays of lazy
  // pages included), faulting none in.
  size_t resident_page_count() const { return pages_.size() + overlays_.size(); }
  // Lazy pages written (or made unknown) but not read yet: overlays.
  size_t overlay_count() const { return overlays_.size(); }
  // Lazy groups not yet read whole.
  size_t lazy_group_count() const { return lazy_.size(); }
  // The last failure of the source since clear_fault(), naming the file,
  // offset and the page's address. The page reads as unknown meanwhile and
  // is asked for again at its next access.
  const std::optional<Error>& fault() const { return fault_; }
  void clear_fault() { fault_.reset(); }

  // Eviction (the index builder's page budget, engine/keyframe_page_lists.h):
  // page no, held as `expect`, leaves memory and becomes lazy, its source
  // (group id: no >> kPageGroupShift) serving it again on the next access.
  // Not a change: nothing is logged. False (nothing done) if page no is not
  // `expect` or has an overlay.
  bool evict(uint64_t no, const Page* expect);
  // Page no is lazy and untouched: evicted (or installed lazy) and neither
  // read nor changed since.
  bool untouched_lazy(uint64_t no) const {
    return !lazy_.empty() && unresolved_group(no) && !overlays_.count(no);
  }
  // The page at no (nullptr: none), faulting in that page only.
  const std::shared_ptr<Page>* find_shared(uint64_t no) const {
    if (!lazy_.empty()) resolve(no);
    auto it = pages_.find(no);
    return it == pages_.end() ? nullptr : &it->second;
  }
  // Calls f(no) for every page held in memory or as an overlay (may
  // repeat none), faulting none in.
  template <class F>
  void for_each_held(F f) const {
    for (const auto& [no, p] : pages_) f(no);
    for (const auto& [no, o] : overlays_) f(no);
  }

  // Change log, for restoring a keyframe over this memory incrementally:
  // while on, the number of every page that is created, copied on write,
  // replaced or dropped is appended (unsorted, may repeat). Past
  // kMaxChangeLog entries it stops and reports overflow instead.
  static constexpr size_t kMaxChangeLog = 1 << 16;
  void start_change_log() { log_on_ = true; log_overflow_ = false; changed_.clear(); }
  const std::vector<uint64_t>& changed_pages() const { return changed_; }
  bool change_log_overflowed() const { return log_overflow_; }
  bool change_log_on() const { return log_on_; }

 private:
  Page* writable_page(uint64_t page_number);
  // Makes `slot` (page no, or its overlay) a page this memory alone holds:
  // a zeroed one if empty, a copy if a keyframe shares it (either noted as
  // a change), and caches it as the page written last.
  Page* own(std::shared_ptr<Page>& slot, uint64_t no);
  // Where a change to page no goes: its overlay if it is lazy and unread,
  // else the page itself (writable_page).
  Page* change_target(uint64_t no);
  struct Overlay;
  Overlay& overlay(uint64_t no);
  void write_slow(uint64_t addr, const uint8_t* src, uint64_t len);
  const Page* find_page(uint64_t page_number) const;

  // Reads and writes fault lazy pages in, hence mutable. Invariant: a page
  // number a lazy group covers and has not resolved has no pages_ entry.
  mutable std::unordered_map<uint64_t, std::shared_ptr<Page>> pages_;
  // Changes to lazy pages not read yet. page->valid marks the bytes
  // written; `unknown` the bytes made unknown since (and not written
  // after). Merged over the source's page by resolve(). Invariant: an
  // overlay's page number has no pages_ entry and an unresolved group.
  struct Overlay {
    std::shared_ptr<Page> page;
    uint64_t unknown[kPageSize / 64] = {};
  };
  mutable std::unordered_map<uint64_t, Overlay> overlays_;
  // The page the source gave (may be null) with overlay o applied; null
  // when no byte of it is known.
  static std::shared_ptr<Page> merged(const std::shared_ptr<Page>& base, const Overlay& o);
  struct LazyGroup {
    uint64_t key = 0, id = 0;
    uint64_t resolved[kPageGroupPages / 64] = {};  // bit set: pages_ has the truth
  };
  mutable std::vector<LazyGroup> lazy_;  // sorted by key
  std::shared_ptr<PageSource> source_;
  mutable std::optional<Error> fault_;
  // The lazy group covering page no if it has not resolved that page.
  LazyGroup* unresolved_group(uint64_t no) const;
  // Faults page no in if it is lazy; then pages_ says whether it exists.
  // False (fault_ set, the page still lazy) if the source failed.
  bool resolve(uint64_t no) const;
  // Page no's truth is in pages_ from now on (it is about to be replaced).
  void mark_resolved(uint64_t no);
  // Whether page no exists, for a change to it: a page that cannot be read
  // counts as absent (its bytes unknown; fault() says why).
  bool has_page_for_change(uint64_t no);
  // The two pages written last (already unshared when cached; a keyframe
  // may share them since, hence the use_count checks). Map nodes are stable.
  // (An overlay's page may be cached: a write is the same to both.)
  mutable uint64_t cache_no_[2] = {~0ull, ~0ull};
  mutable std::shared_ptr<Page>* cache_[2] = {nullptr, nullptr};
  // The cached page `no` if nothing shares it, else nullptr.
  Page* cached_writable(uint64_t no) const {
    for (int i = 0; i < 2; ++i)
      if (no == cache_no_[i] && cache_[i]->use_count() == 1) return cache_[i]->get();
    return nullptr;
  }
  void forget_cached() const {
    cache_no_[0] = cache_no_[1] = ~0ull;
    cache_[0] = cache_[1] = nullptr;
    absent_no_ = ~0ull;
  }
  // A page number last found missing (traces that only say that stores
  // happened invalidate pages that never existed, over and over); any
  // change to that page forgets it.
  mutable uint64_t absent_no_ = ~0ull;
  bool log_on_ = false, log_overflow_ = false;
  std::vector<uint64_t> changed_;
  void note_change(uint64_t no) {
    if (no == absent_no_) absent_no_ = ~0ull;
    if (!log_on_) return;
    if (changed_.size() < kMaxChangeLog) changed_.push_back(no);
    else log_overflow_ = true;
  }
};

}  // namespace ttd
