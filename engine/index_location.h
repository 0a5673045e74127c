// Where a trace's index lives, and whether whatever is already at that
// path may be replaced by a new index (docs/security.md: the builder
// never writes over a file that is not this trace's index).
#pragma once
#include <cstdint>
#include <functional>
#include <string>

#include "state/error.h"

namespace ttd {

// xxh3 of the trace's absolute, lexically normal path (recorded in the
// index header: tells an index of another trace apart).
uint64_t trace_path_hash(const std::string& trace);

// TRACE.ttdidx beside the trace (absolute).
std::string index_path_beside(const std::string& trace);
// The trace's index in the cache folder: cache_dir, else
// $XDG_CACHE_HOME/ttd, else $HOME/.cache/ttd (created if missing).
std::string index_path_in_cache(const std::string& trace, const std::string& cache_dir);

// Whether the folder can take a new file (access(W_OK)); OpenOptions can
// replace it (tests: root passes access() on any folder that is not on a
// read-only mount).
using FolderWritable = std::function<bool(const std::string& folder)>;
bool folder_writable(const std::string& folder);

// OK when a new index may be renamed onto `index_path`: nothing is there,
// an empty regular file, or a ttd index (magic matches) that is damaged,
// of another version, or — when `only_this_trace` — built from the trace
// whose path hash is `trace_hash`. Refused, with the path and the reason:
// anything not a regular file (device, FIFO, directory, socket), a regular
// file without the index magic, and a valid index of another trace.
Status check_index_replaceable(const std::string& index_path, uint64_t trace_hash, bool only_this_trace);

// Removes the index at `index_path` if it is a ttd index (after a failed
// rebuild: the old one must not be used again). Anything else is left.
void discard_index(const std::string& index_path);

}  // namespace ttd
