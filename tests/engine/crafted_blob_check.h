// The check the page-delta and segment-delta tests make of a crafted blob
// behind correct checksums: the read that needs it fails with an error
// naming the index file, the offset of the blob at fault and what is
// wrong; `ttd index --verify` fails; no seek crashes or succeeds silently.
#pragma once
#include <doctest/doctest.h>

#include <map>
#include <string>
#include <vector>

#include "engine/cursor.h"
#include "engine/page_cache.h"
#include "index_file_damage.h"
#include "temp_synthetic_trace.h"

namespace ttd::test {

// `original`: the index's bytes as built with tt.options(interval). Table
// t's entries (pages or segments) in `blobs` are replaced by the crafted
// bytes; entry `ask` is read and must fail at blob `bad` saying `want`.
inline void check_crafted_blob_error(const TempSynthTrace& tt, uint32_t interval, const std::vector<uint8_t>& original,
                                     IndexTable t, const std::map<uint64_t, std::vector<uint8_t>>& blobs, uint64_t ask,
                                     uint64_t bad, const char* want) {
  CAPTURE(want);
  const std::string index_path = tt.path + ".ttdidx";
  const std::map<uint64_t, uint64_t> at = write_with_crafted_blobs(index_path, original, t, blobs);
  auto trace = Trace::open(tt.path, tt.options(interval));
  REQUIRE(trace.ok());
  const IndexFile& idx = (*trace)->index();
  PageCache cache(idx);
  CHECK((t == IndexTable::Pages ? bool(cache.get(ask)) : bool(cache.segment(ask))) == false);
  const std::string msg = idx.chunk_error(0).to_string();
  CHECK(msg.find(index_path) != std::string::npos);
  CHECK(msg.find("at byte " + std::to_string(at.at(bad))) != std::string::npos);
  CHECK(msg.find(want) != std::string::npos);
  CHECK(!idx.verify().ok());
  // Each seek either reaches a state (whose every page is read) or reports
  // the index.
  Cursor c(*trace);
  const uint64_t last = (*trace)->step_count();
  for (uint64_t e = 0; e <= last; e += interval) {
    Status s = c.seek(e);
    if (s.ok()) {
      (void)c.state().digest();
      if (auto fault = c.memory_fault()) s = *fault;
    }
    if (!s.ok()) CHECK(s.error().to_string().find(index_path) != std::string::npos);
  }
}

}  // namespace ttd::test
