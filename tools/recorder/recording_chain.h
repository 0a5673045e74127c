// A recording that goes on across execve, and into followed children
// (docs/recording.md, "execve and --follow-fork"). Each program image gets
// a trace of its own, because every reader, the index, the symbolizer and
// gdb's view take one program image per trace:
//
//   OUT.ucir          the program `ttd record` started
//   OUT.1.ucir ...    what it executed next, then next (a chain count,
//                     not nesting: OUT.1's execve goes on in OUT.2)
//   OUT.PID.ucir      with --follow-fork, a child, PID as the guest sees
//                     it (the host pid); its execs OUT.PID.1.ucir ...
//
// The number goes before the last extension (none: appended), so the
// traces sort together and keep the extension tools look for.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tools/recorder/guest_execve.h"
#include "tools/recorder/linux_kernel.h"
#include "tools/recorder/recorder.h"

namespace ttd::rec {

// `base` with ".N" inserted before its extension; n = 0: base itself.
std::string chain_trace_name(const std::string& base, uint64_t n);
// The trace of a followed child: `output` with ".PID" inserted.
std::string child_trace_name(const std::string& output, long pid);

// One program image to record (recorder.cpp).
struct ImageSpec {
  std::string program;  // host path of the ELF (absolute, symbolic links kept)
  std::string exe;      // its real path: /proc/self/exe
  std::string execfn;   // the path as execve was given it (AT_EXECFN, the task's name); empty: `program`
  std::vector<std::string> argv, env;
  std::string output;
  std::unique_ptr<ExecCarry> carry;  // what the process kept across execve; null for the first image
  uint64_t clock_base = 0;           // steps of the chain so far: the guest's clocks go on
  bool first = true;                 // the image `ttd record` started (ld.so failing there is an error)
  uint64_t ignored_signals = 0;      // first image: signals ignored when the recording started (bit sig-1)
  uint64_t recorder_pid = 0;         // the host pid of the process `ttd record` started in
};

struct ImageResult {
  RecordSummary sum;  // of the trace at `output`, with traces = {that one}
  std::string output;  // a followed child's own trace, when this process became one
  std::optional<ExecTarget> exec;    // the image ended in this execve
  std::unique_ptr<ExecCarry> carry;  // ... keeping this
  uint64_t clock_end = 0;
  bool forked_child = false;  // this process is now a followed fork's child (it must not return to the caller)
};

Result<ImageResult> record_image(const RecordOptions& opts, ImageSpec spec);

}  // namespace ttd::rec
