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
  PagedMemory(PagedMemory&& o) noexcept : pages_(std::move(o.pages_)) { o.clear(); }
  PagedMemory& operator=(const PagedMemory& o) {
    if (this != &o) { pages_ = o.pages_; last_no_ = ~0ull; last_ = nullptr; }
    return *this;
  }
  PagedMemory& operator=(PagedMemory&& o) noexcept {
    if (this != &o) { pages_ = std::move(o.pages_); last_no_ = ~0ull; last_ = nullptr; o.clear(); }
    return *this;
  }

  // Writes known bytes.
  void write(uint64_t addr, const uint8_t* src, uint64_t len);
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
  void clear() { pages_.clear(); last_no_ = ~0ull; last_ = nullptr; }
  size_t page_count() const { return pages_.size(); }

 private:
  Page* writable_page(uint64_t page_number);
  const Page* find_page(uint64_t page_number) const;

  std::unordered_map<uint64_t, std::shared_ptr<Page>> pages_;
  // One-entry cache of the last page written (already unshared).
  uint64_t last_no_ = ~0ull;
  std::shared_ptr<Page>* last_ = nullptr;  // map nodes are stable
};

}  // namespace ttd
