#include "state/paged_memory.h"
#include "state/page_pool.h"

#include <algorithm>
#include <cstdio>
#include <string>

namespace ttd {

namespace {
std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%llx", static_cast<unsigned long long>(v));
  return buf;
}
// Bit ranges of a page's byte masks (Page::valid, Overlay::unknown).
inline void set_bits(uint64_t* mask, uint64_t off, uint64_t n) {
  for (uint64_t i = off; i < off + n;) {
    if ((i & 63) == 0 && i + 64 <= off + n) {
      mask[i >> 6] = ~0ull;
      i += 64;
    } else {
      mask[i >> 6] |= 1ull << (i & 63);
      ++i;
    }
  }
}
inline void clear_bits(uint64_t* mask, uint64_t off, uint64_t n) {
  for (uint64_t i = off; i < off + n;) {
    if ((i & 63) == 0 && i + 64 <= off + n) {
      mask[i >> 6] = 0;
      i += 64;
    } else {
      mask[i >> 6] &= ~(1ull << (i & 63));
      ++i;
    }
  }
}
inline void set_valid_range(Page& p, uint64_t off, uint64_t n) { set_bits(p.valid, off, n); }
inline void clear_valid_range(Page& p, uint64_t off, uint64_t n) { clear_bits(p.valid, off, n); }
// Marks page no resolved in its lazy group (a template: the group type is
// PagedMemory's own).
template <class LazyGroup>
void set_resolved(LazyGroup& g, uint64_t no) {
  const uint64_t rel = no & (kPageGroupPages - 1);
  g.resolved[rel >> 6] |= uint64_t(1) << (rel & 63);
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
  // A lazy page is read before it is changed; one that cannot be read is
  // written as a fresh page (its other bytes unknown, fault() set).
  (void)has_page_for_change(no);
  return own(pages_[no], no);
}

Page* PagedMemory::own(std::shared_ptr<Page>& slot, uint64_t no) {
  if (!slot) {
    slot = make_page();
    note_change(no);
  } else if (slot.use_count() > 1) {
    slot = make_page_copy(*slot);
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

Page* PagedMemory::change_target(uint64_t no) {
  if (Page* p = cached_writable(no)) return p;
  if (!lazy_.empty() && unresolved_group(no)) return overlay(no).page.get();
  return writable_page(no);
}

PagedMemory::Overlay& PagedMemory::overlay(uint64_t no) {
  Overlay& o = overlays_[no];
  own(o.page, no);
  return o;
}

std::shared_ptr<Page> PagedMemory::merged(const std::shared_ptr<Page>& base, const Overlay& o) {
  auto out = base ? make_page_copy(*base) : make_page();
  const Page& w = *o.page;
  bool any = false;
  for (uint64_t i = 0; i < kPageSize / 64; ++i) {
    const uint64_t written = w.valid[i], touched = written | o.unknown[i];
    if (touched) {
      for (uint64_t b = 0; b < 64; ++b)
        if ((touched >> b) & 1u) out->data[i * 64 + b] = (written >> b) & 1u ? w.data[i * 64 + b] : 0;
      out->valid[i] = (out->valid[i] & ~touched) | written;
    }
    any |= out->valid[i] != 0;
  }
  return any ? out : nullptr;
}

const Page* PagedMemory::find_page(uint64_t no) const {
  auto it = pages_.find(no);
  if (it != pages_.end()) return it->second.get();
  if (lazy_.empty() || !resolve(no)) return nullptr;
  it = pages_.find(no);
  return it == pages_.end() ? nullptr : it->second.get();
}

PagedMemory::LazyGroup* PagedMemory::unresolved_group(uint64_t no) const {
  const uint64_t key = no >> kPageGroupShift;
  auto it = std::lower_bound(lazy_.begin(), lazy_.end(), key, [](const LazyGroup& g, uint64_t k) { return g.key < k; });
  if (it == lazy_.end() || it->key != key) return nullptr;
  const uint64_t rel = no & (kPageGroupPages - 1);
  return (it->resolved[rel >> 6] >> (rel & 63)) & 1u ? nullptr : &*it;
}

bool PagedMemory::resolve(uint64_t no) const {
  LazyGroup* g = unresolved_group(no);
  if (!g) return true;
  const uint64_t rel = no & (kPageGroupPages - 1);
  auto fail = [&](Error e) {
    e.message = "memory page at 0x" + hex(no << kPageShift) + " cannot be read: " + e.message;
    fault_ = std::move(e);
    return false;
  };
  if (!source_) return fail(make_error("memory", "lazy page without a page source"));
  auto page = source_->page_at(g->id, rel);
  if (!page) return fail(page.error());  // an overlay stays, for the next try
  if (!overlays_.empty()) {
    if (auto it = overlays_.find(no); it != overlays_.end()) {
      *page = merged(*page, it->second);
      forget_cached();  // it may point into the overlay
      overlays_.erase(it);
    }
  }
  if (*page) pages_.emplace(no, std::move(*page));
  set_resolved(*g, no);
  return true;
}

void PagedMemory::mark_resolved(uint64_t no) {
  if (LazyGroup* g = unresolved_group(no)) set_resolved(*g, no);
}

// The one resolve-or-mark: writable_page() calls it for the side effect.
bool PagedMemory::has_page_for_change(uint64_t no) {
  if (!lazy_.empty() && !resolve(no)) mark_resolved(no);
  return pages_.count(no) != 0;
}

bool PagedMemory::evict(uint64_t no, const Page* expect) {
  auto it = pages_.find(no);
  if (it == pages_.end() || it->second.get() != expect || overlays_.count(no)) return false;
  if (no == cache_no_[0] || no == cache_no_[1]) forget_cached();
  pages_.erase(it);
  const uint64_t key = no >> kPageGroupShift;
  auto g = std::lower_bound(lazy_.begin(), lazy_.end(), key, [](const LazyGroup& x, uint64_t k) { return x.key < k; });
  if (g == lazy_.end() || g->key != key) {
    // A new group: every other page of it already has its truth in pages_.
    LazyGroup fresh{key, key, {}};
    std::fill(std::begin(fresh.resolved), std::end(fresh.resolved), ~0ull);
    g = lazy_.insert(g, fresh);
  }
  const uint64_t rel = no & (kPageGroupPages - 1);
  g->resolved[rel >> 6] &= ~(uint64_t(1) << (rel & 63));
  return true;
}

void PagedMemory::install_lazy(const LazyGroupRef* groups, size_t n) {
  pages_.clear();
  overlays_.clear();
  forget_cached();
  changed_.clear();
  log_overflow_ = log_on_;  // every page changed
  // Each group written once (resize() would zero them all first).
  lazy_.clear();
  lazy_.reserve(n);
  for (size_t i = 0; i < n; ++i) lazy_.push_back(LazyGroup{groups[i].key, groups[i].id, {}});
}

void PagedMemory::materialise_all() const {
  // Overlays of pages the groups do not list are not reached below.
  std::vector<uint64_t> written;
  for (const auto& [no, o] : overlays_) written.push_back(no);
  for (uint64_t no : written) resolve(no);
  std::vector<char> whole(lazy_.size(), 0);
  for (size_t i = 0; i < lazy_.size(); ++i) {
    const LazyGroup& g = lazy_[i];
    if (!source_) {
      fault_ = make_error("memory", "lazy pages without a page source");
      continue;
    }
    auto rels = source_->page_numbers(g.id);
    if (!rels) {
      Error e = rels.error();
      e.message = "memory at 0x" + hex(g.key << (kPageGroupShift + kPageShift)) + " cannot be read: " + e.message;
      fault_ = std::move(e);
      continue;
    }
    whole[i] = 1;
    for (uint64_t rel : *rels)
      if (rel < kPageGroupPages && !resolve((g.key << kPageGroupShift) | rel)) whole[i] = 0;
  }
  // An overlay whose page could not be read keeps its group.
  for (const auto& [no, o] : overlays_)
    if (const LazyGroup* g = unresolved_group(no)) whole[size_t(g - lazy_.data())] = 0;
  // A group whose every page was read leaves: pages_ holds its truth now.
  size_t kept = 0;
  for (size_t i = 0; i < lazy_.size(); ++i)
    if (!whole[i]) lazy_[kept++] = lazy_[i];
  lazy_.resize(kept);
}

void PagedMemory::set_page(uint64_t no, std::shared_ptr<Page> page) {
  if (no == cache_no_[0] || no == cache_no_[1]) forget_cached();
  if (!lazy_.empty()) mark_resolved(no);
  if (!overlays_.empty()) overlays_.erase(no);  // replaced whole
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
    Page* p = change_target(addr >> kPageShift);
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
    Page* p = change_target(addr >> kPageShift);
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
    if (!lazy_.empty() && unresolved_group(no)) {  // an overlay has one too
      Overlay& o = overlay(no);
      std::memset(o.page->data + off, 0, n);
      clear_valid_range(*o.page, off, n);
      set_bits(o.unknown, off, n);
      if (n == len) break;
      addr += n;
      len -= n;
      continue;
    }
    // The page written last, or the one found missing last, answers
    // without a map lookup.
    Page* p = cached_writable(no);
    if (!p && no != absent_no_) {
      if (has_page_for_change(no))
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

Status PagedMemory::read_checked(uint64_t addr, uint8_t* dst, uint8_t* valid, uint64_t len) const {
  fault_.reset();
  read(addr, dst, valid, len);
  if (fault_) return *fault_;
  return {};
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
