// Sparse paged memory of one process with per-byte validity. Pages are
// shared copy-on-write: copying a PagedMemory (or installing pages from a
// keyframe) shares them, and the first write to a shared page copies it.
#pragma once
#include <cstdint>
#include <cstring>
#include <memory>
#include <unordered_map>
#include <vector>

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
  PagedMemory(const PagedMemory& o) : pages_(o.pages_) {}
  PagedMemory(PagedMemory&& o) noexcept
      : pages_(std::move(o.pages_)), log_on_(o.log_on_), log_overflow_(o.log_overflow_), changed_(std::move(o.changed_)) {
    o.clear();
  }
  PagedMemory& operator=(const PagedMemory& o) {
    if (this != &o) {
      pages_ = o.pages_;
      forget_cached();
      log_overflow_ = log_on_;  // every page may have changed
    }
    return *this;
  }
  PagedMemory& operator=(PagedMemory&& o) noexcept {
    if (this != &o) {
      pages_ = std::move(o.pages_);
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
  // True if every byte of [addr, addr+len) is known.
  bool all_known(uint64_t addr, uint64_t len) const;

  // Page-level access for keyframes and digests.
  const std::unordered_map<uint64_t, std::shared_ptr<Page>>& pages() const { return pages_; }
  void set_page(uint64_t page_number, std::shared_ptr<Page> page);
  void clear() {
    pages_.clear();
    forget_cached();
    changed_.clear();
    log_overflow_ = log_on_;  // every page changed
  }
  size_t page_count() const { return pages_.size(); }

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
  void write_slow(uint64_t addr, const uint8_t* src, uint64_t len);
  const Page* find_page(uint64_t page_number) const;

  std::unordered_map<uint64_t, std::shared_ptr<Page>> pages_;
  // The two pages written last (already unshared when cached; a keyframe
  // may share them since, hence the use_count checks). Map nodes are stable.
  uint64_t cache_no_[2] = {~0ull, ~0ull};
  std::shared_ptr<Page>* cache_[2] = {nullptr, nullptr};
  // The cached page `no` if nothing shares it, else nullptr.
  Page* cached_writable(uint64_t no) const {
    for (int i = 0; i < 2; ++i)
      if (no == cache_no_[i] && cache_[i]->use_count() == 1) return cache_[i]->get();
    return nullptr;
  }
  void forget_cached() {
    cache_no_[0] = cache_no_[1] = ~0ull;
    cache_[0] = cache_[1] = nullptr;
    absent_no_ = ~0ull;
  }
  // A page number last found missing (traces that only say that stores
  // happened invalidate pages that never existed, over and over); any
  // change to that page forgets it.
  uint64_t absent_no_ = ~0ull;
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
