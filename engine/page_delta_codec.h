// Page versions stored as deltas (index version 10). A page store entry is
// one blob; its raw (decompressed) size says what it is:
//   exactly sizeof(Page)   the page whole (data and known-byte bitmap)
//   shorter                a delta:
//     var  base     0: the zero page (no byte known); k: page id k - 1,
//                   which must be older (smaller) than the delta's own id,
//                   so no chain can loop
//     then runs to the end of the blob, each
//     var  gap      unchanged bytes since the end of the previous run
//     var  len - 1  then len bytes: the new bytes of the run
//   Offsets are into the Page struct (sizeof(Page) bytes); a run that
//   reaches past it is corrupt.
//   longer                 corrupt
// The builder stores a page version as a delta against the previous version
// of the same page number when that is shorter than the page and the base's
// chain has fewer than kMaxPageDeltaChain deltas; otherwise whole. So
// restoring a page applies at most kMaxPageDeltaChain deltas, and the
// reader refuses a longer chain (a crafted file cannot make it walk far).
#pragma once
#include <cstddef>
#include <cstdint>

#include "engine/byte_codec.h"
#include "state/paged_memory.h"

namespace ttd {

constexpr uint32_t kMaxPageDeltaChain = 16;

// Appends the delta that turns `base` (nullptr: the zero page) into `page`,
// base field `base_field` (0 or base id + 1). False when it would not be
// shorter than `limit` bytes, at most a page (then store the page whole or
// try another base; out is unspecified). A small limit stops the scan
// early: a second base is tried only while it is cheap.
bool encode_page_delta(const Page& page, const Page* base, uint64_t base_field, ByteWriter& out,
                       size_t limit = sizeof(Page));

struct PageDeltaHead {
  bool zero_base = false;
  uint64_t base_id = 0;   // when !zero_base
  size_t runs_at = 0;     // offset of the first run in the blob
};
// Reads a delta's base (own_id: the delta's page id). nullptr, or what is
// wrong (a base that is not older than own_id: a cycle).
const char* parse_page_delta(const uint8_t* data, size_t size, uint64_t own_id, PageDeltaHead& out);
// Applies a parsed delta's runs to page (a copy of its base). nullptr, or
// what is wrong (a run past the page, an empty or cut-short run); page is
// then unspecified.
const char* apply_page_delta(const uint8_t* data, size_t size, const PageDeltaHead& head, Page& page);
// Checks a stored page blob's raw bytes without restoring it (ttd index
// --verify): nullptr, or what is wrong.
const char* check_page_blob(const uint8_t* data, size_t size, uint64_t own_id);

}  // namespace ttd
