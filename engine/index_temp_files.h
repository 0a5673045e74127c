// Temporary files of index builds. A build writes INDEX.tmp.PID.N
// (N counts the builds of this process), created exclusively and held
// under an exclusive flock() while it is written, then renamed onto
// INDEX. A build that dies leaves its temporary file; the next open of an
// index at the same path removes every INDEX.tmp.PID[.N] whose process is
// gone and whose lock is free (a live build, even one in a process that
// forked, keeps its file). The CLI also removes its own temporary files on
// SIGINT, SIGTERM and SIGHUP before dying of the signal.
#pragma once
#include <string>

#include "state/error.h"

namespace ttd {

struct TempIndexFile {
  int fd = -1;  // read-write, locked
  std::string path;
};

// Creates and locks a new temporary file for an index at `index_path`,
// and registers it for removal on a signal (see remove_temp_files_on_signals).
Result<TempIndexFile> create_temp_index(const std::string& index_path);
// Unregisters it (after it was renamed into place or removed).
void forget_temp_index(const std::string& temp_path);

// Removes the abandoned temporary files of `index_path`; returns how many.
int remove_abandoned_temp_indexes(const std::string& index_path);

// Installs SIGINT / SIGTERM / SIGHUP handlers that unlink the registered
// temporary files (async-signal-safe) and then re-raise the signal with
// its default action. A signal that is ignored (nohup) stays ignored.
// Once per process; for programs, not for a library's host (Python).
void remove_temp_files_on_signals();

}  // namespace ttd
