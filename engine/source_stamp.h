// What the index remembers about its trace, to tell whether the trace has
// changed since (docs/design.md, "Stale index detection").
//
// A trace is trusted unchanged when its size, mtime and identity (device,
// inode and ctime: ctime cannot be set back by `touch`, so an edit in
// place always changes it) all match. When only size and mtime match (the
// file was copied with its times, `cp -p`, or renamed, chmod-ed), the
// whole-trace xxh3 recorded at build time is recomputed and compared
// before trusting the index. Anything else is stale.
#pragma once
#include <atomic>
#include <cstdint>
#include <string>

#include "state/error.h"

namespace ttd {

struct SourceStamp {
  uint64_t size = 0;          // bytes (a directory trace: of its regular files)
  uint64_t mtime_ns = 0;      // st_mtim (a directory: xxh3 of its files' names, sizes and mtimes)
  uint64_t identity = 0;      // xxh3 of st_dev, st_ino, st_ctim (a directory: of each file's)
  uint64_t content_hash = 0;  // xxh3 of every byte (a directory: names and contents); 0 = not computed
  bool operator==(const SourceStamp&) const = default;
};

// stat() only, no content read. A trace must be a regular file or a
// directory: a FIFO, device or socket is refused (opening one could block
// forever or never end).
Result<SourceStamp> stamp_source(const std::string& path);

// The whole-trace xxh3 (SourceStamp::content_hash). Never 0. `cancel`,
// when set by another thread, stops the read early (the result is then
// an error).
Result<uint64_t> hash_source_content(const std::string& path, const std::atomic<bool>* cancel = nullptr);

enum class Freshness { Fresh, Stale, ContentCheckNeeded };
Freshness judge_freshness(const SourceStamp& recorded, const SourceStamp& now);

}  // namespace ttd
