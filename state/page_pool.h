// Where every memory Page of the machine state is allocated.
//
// A trace that writes many distinct pages (Tenet's page-heavy trace: 190,000
// pages, 755 MB live) spent ~40 % of a one-core index build in the first
// touch of fresh heap: one page fault and one zeroing per 4 KiB, and on the
// build's replay thread one mprotect call per page (glibc grows a thread
// arena by exactly each allocation's shortfall). Pages therefore come from
// 2 MiB slabs of their own, mapped aligned and marked MADV_HUGEPAGE, so the
// kernel backs them with transparent huge pages where it can (one fault per
// 2 MiB) and never by growing malloc's arenas. docs/design.md, "Page pool".
//
// Contract:
//  - make_page() is all unknown (data and validity bits zero);
//    make_page_copy(p) is a copy of p. All three return shared pages that may be
//    released on any thread (the pool is locked).
//  - A slab whose pages are all released goes back to the system, except
//    one kept for the next allocation, so memory follows the live pages.
//  - Without transparent huge pages (THP "never", or no 2 MiB page free)
//    slabs are ordinary memory and everything works the same.
//  - Built with AddressSanitizer, pages come from the ordinary heap (and
//    page_pool_stats() stays empty), so ASan checks their lifetimes.
#pragma once
#include <cstddef>
#include <memory>

#include "state/paged_memory.h"

namespace ttd {

std::shared_ptr<Page> make_page();
std::shared_ptr<Page> make_page_copy(const Page& p);
// A page from sizeof(Page) bytes laid out as a Page (a stored page blob).
std::shared_ptr<Page> make_page_from_bytes(const void* bytes);

// What the pool holds now. For tests and benchmarks.
struct PagePoolStats {
  size_t slabs = 0;        // mapped from the system, the spare included
  size_t live_blocks = 0;  // pages (with their shared_ptr control block) not yet released
};
PagePoolStats page_pool_stats();

}  // namespace ttd
