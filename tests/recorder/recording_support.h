// What the recorder tests share: the options of a recording whose output is
// captured, the checks of a clean run, a file's bytes, a directory removed
// with everything in it. With trace_digest.h (reading a trace back, where
// the programs are) and native_run.h (the native ground truth) it is the
// whole of the recorder tests' support; include this header for all three.
#pragma once
#include <filesystem>
#include <initializer_list>
#include <string>
#include <vector>

#include "state/error.h"
#include "tests/recorder/native_run.h"
#include "tests/recorder/trace_digest.h"
#include "tools/recorder/recorder.h"

namespace ttd::rec::test {

// Records argv into `out`, capturing stdout and stderr, with empty stdin
// and an empty environment; callers add env, verify, quantum as needed.
RecordOptions capture_options(const std::vector<std::string>& argv, const std::string& out);

// The run exited without a fault, an unsupported syscall or a verify error.
void check_clean(const RecordSummary& s);

// A program's threads scheduled with a small quantum (5,000 steps), so
// they interleave within a short test: capture_options of prog + args.
RecordOptions threaded_options(const std::string& prog, const std::string& out, std::vector<std::string> args = {});

// Records with `o`, which must end with every thread blocked, and returns
// the recorder's deadlock report (REQUIREs the recording and the report;
// checks that no syscall was unsupported).
std::string deadlock_report(const RecordOptions& o);

// Records `o` a second time into `again`, verification on as
// check_records_like_native records, and checks the trace is byte-for-byte
// `first` (recordings are deterministic); removes `again`.
void check_records_identically(RecordOptions o, const std::string& first, const std::string& again);

// Records with `o`, verification turned on, and checks what every "prints
// what it prints natively" case checks: the recording succeeded, ran clean
// (check_clean), exited 0 without a deadlock and wrote `native` to stdout.
// Returns the summary for the case's own checks (REQUIREs the recording).
RecordSummary check_records_like_native(RecordOptions o, const std::string& native);

// One mode of a test program (programs/PROGRAM.c, built per variant):
// each variant's recording (capture_options of `PROGRAM MODE [ARG]`,
// LC_ALL=C, `inherit_fds` passed on) prints what its native run prints;
// AArch64 variants are compared with x86-64-dyn's native run (glibc
// prints the same). Checks that at least one variant exists, and nothing
// when x86-64-dyn's program was not built.
void check_mode_like_native(const char* program, const char* mode, std::initializer_list<const char*> variants,
                            const std::string& arg = "", std::vector<int> inherit_fds = {});

// A mode that forks a child which the recording does not follow (its
// stdout goes to the host's): prints what it prints natively.
void check_child_like_native(const char* program, const char* mode, const char* variant);

// Records with `o` (capture_output off, unless `capture_recorded`) while
// the test's own stdout goes to a file: what a program's children print
// lands there with what the recorded process prints (captured in the
// summary instead with `capture_recorded`), in the order written. Returns
// the summary (REQUIREs the recording) and that output.
struct HostStdoutRun {
  RecordSummary sum;
  std::string out;
};
HostStdoutRun record_with_host_stdout(RecordOptions o, bool capture_recorded = false);

// The error text of a failed result, "" for a good one (REQUIRE_MESSAGE).
template <class T>
std::string error_text(const Result<T>& r) {
  return r.ok() ? std::string() : r.error().to_string();
}

// A file's bytes ("" when it cannot be read).
std::string file_text(const std::string& path);

// A directory for one test, removed with everything in it.
struct TempDir {
  std::filesystem::path path;
  explicit TempDir(const std::string& tag);
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string file(const std::string& name) const { return (path / name).string(); }
};

}  // namespace ttd::rec::test
