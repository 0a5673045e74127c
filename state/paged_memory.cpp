#include "state/paged_memory.h"

#include <algorithm>

namespace ttd {

namespace {
inline void set_valid_range(Page& p, uint64_t off, uint64_t n) {
  for (uint64_t i = off; i < off + n;) {
    if ((i & 63) == 0 && i + 64 <= off + n) {
      p.valid[i >> 6] = ~0ull;
      i += 64;
    } else {
      p.valid[i >> 6] |= 1ull << (i & 63);
      ++i;
    }
  }
}
inline void clear_valid_range(Page& p, uint64_t off, uint64_t n) {
  for (uint64_t i = off; i < off + n;) {
    if ((i & 63) == 0 && i + 64 <= off + n) {
      p.valid[i >> 6] = 0;
      i += 64;
    } else {
      p.valid[i >> 6] &= ~(1ull << (i & 63));
      ++i;
    }
  }
}
}  // namespace

bool Page::all_valid() const {
  return std::all_of(std::begin(valid), std::end(valid), [](uint64_t w) { return w == ~0ull; });
}
bool Page::none_valid() const {
  return std::all_of(std::begin(valid), std::end(valid), [](uint64_t w) { return w == 0; });
}

Page* PagedMemory::writable_page(uint64_t no) {
  // Someone (a keyframe) may have started sharing the cached page since.
  if (Page* p = cached_writable(no)) return p;
  auto& slot = pages_[no];
  if (!slot) {
    slot = std::make_shared<Page>();
    std::memset(slot.get(), 0, sizeof(Page));
    note_change(no);
  } else if (slot.use_count() > 1) {
    slot = std::make_shared<Page>(*slot);
    note_change(no);
  }
  if (cache_no_[0] != no) {
    cache_no_[1] = cache_no_[0];
    cache_[1] = cache_[0];
  }
  cache_no_[0] = no;
  cache_[0] = &slot;
  return slot.get();
}

const Page* PagedMemory::find_page(uint64_t no) const {
  auto it = pages_.find(no);
  return it == pages_.end() ? nullptr : it->second.get();
}

void PagedMemory::set_page(uint64_t no, std::shared_ptr<Page> page) {
  if (no == cache_no_[0] || no == cache_no_[1]) forget_cached();
  note_change(no);
  if (page)
    pages_[no] = std::move(page);
  else
    pages_.erase(no);
}

void PagedMemory::write_slow(uint64_t addr, const uint8_t* src, uint64_t len) {
  while (len) {
    uint64_t off = addr & (kPageSize - 1);
    uint64_t n = std::min(len, kPageSize - off);
    Page* p = writable_page(addr >> kPageShift);
    std::memcpy(p->data + off, src, n);
    set_valid_range(*p, off, n);
    addr += n;
    src += n;
    len -= n;
  }
}

namespace {
// Whole pages of known zeros (fresh mappings) all share one page until written.
std::shared_ptr<Page> shared_zero_page() {
  static const std::shared_ptr<Page> zero = [] {
    auto p = std::make_shared<Page>();
    std::memset(p->data, 0, kPageSize);
    std::memset(p->valid, 0xff, sizeof p->valid);
    return p;
  }();
  return zero;
}
}  // namespace

void PagedMemory::fill(uint64_t addr, uint64_t len, uint8_t value) {
  while (len) {
    uint64_t off = addr & (kPageSize - 1);
    uint64_t n = std::min(len, kPageSize - off);
    if (value == 0 && n == kPageSize) {
      set_page(addr >> kPageShift, shared_zero_page());
      if (n == len) break;
      addr += n;
      len -= n;
      continue;
    }
    Page* p = writable_page(addr >> kPageShift);
    std::memset(p->data + off, value, n);
    set_valid_range(*p, off, n);
    addr += n;
    len -= n;
  }
}

void PagedMemory::invalidate(uint64_t addr, uint64_t len) {
  while (len) {
    uint64_t off = addr & (kPageSize - 1);
    uint64_t n = std::min(len, kPageSize - off);
    uint64_t no = addr >> kPageShift;
    // The page written last, or the one found missing last, answers
    // without a map lookup.
    Page* p = cached_writable(no);
    if (!p && no != absent_no_) {
      if (pages_.count(no))
        p = writable_page(no);
      else
        absent_no_ = no;
    }
    if (p) {
      std::memset(p->data + off, 0, n);
      clear_valid_range(*p, off, n);
      if (p->none_valid()) set_page(no, nullptr);
    }
    if (n == len) break;
    addr += n;
    len -= n;
  }
}

uint64_t PagedMemory::read(uint64_t addr, uint8_t* dst, uint8_t* valid, uint64_t len) const {
  uint64_t known = 0;
  while (len) {
    uint64_t off = addr & (kPageSize - 1);
    uint64_t n = std::min(len, kPageSize - off);
    const Page* p = find_page(addr >> kPageShift);
    if (!p) {
      std::memset(dst, 0, n);
      if (valid) std::memset(valid, 0, n);
    } else {
      std::memcpy(dst, p->data + off, n);
      for (uint64_t i = 0; i < n; ++i) {
        uint64_t b = off + i;
        bool v = (p->valid[b >> 6] >> (b & 63)) & 1u;
        if (valid) valid[i] = v;
        known += v;
      }
    }
    if (n == len) break;
    addr += n;
    dst += n;
    if (valid) valid += n;
    len -= n;
  }
  return known;
}

bool PagedMemory::all_known(uint64_t addr, uint64_t len) const {
  std::vector<uint8_t> tmp(len);
  return read(addr, tmp.data(), nullptr, len) == len;
}

}  // namespace ttd
