// What a recorded process starts with (ProcessConfig, from RecordOptions
// and the loader) and what it keeps across execve into the next program
// image's kernel (ExecCarry): the LinuxKernel's inputs, kept apart from
// the kernel so the session and the exec chain can build them.
#pragma once
#include <sys/types.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tools/recorder/guest_fd_table.h"
#include "tools/recorder/guest_proc_files.h"
#include "tools/recorder/guest_rlimits.h"
#include "tools/recorder/step_timer.h"

namespace ttd::rec {

// The name Linux gives a task at execve: the last component of the path
// execve was given, cut to 15 bytes (/proc/self/comm, PR_GET_NAME).
std::string task_name_of(std::string_view execfn);

struct ProcessConfig {
  std::string exe_path;                 // absolute path of the program (readlink /proc/self/exe)
  std::string execfn;                   // the path execve was given (AT_EXECFN); comm is its last component
  uint64_t brk_base = 0;                // first byte after the loaded image, page aligned
  std::optional<std::string> stdin_data;  // else the host's stdin
  bool capture_output = false;          // else the host's stdout/stderr
  std::string sysroot;                  // absolute paths found under it are opened there
  ProcSelfLayout proc_self;             // the guest's /proc/self/cmdline, environ, auxv
  uint64_t epoch_seconds = 0;           // CLOCK_REALTIME at the first step (RecordOptions)
  uint32_t epoch_nanoseconds = 0;       // and its nanoseconds
  bool follow_fork = false;             // a fork's child is recorded too (RecordOptions::follow_fork)
  std::vector<int> inherit_fds;         // host descriptors the guest gets with the same numbers (RecordOptions)
  uint64_t ignored_signals = 0;         // SIG_IGN from the start (bit sig-1): inherited from ttd record's parent
  uint64_t pid = 0;                     // the recorded process's pid (RecordOptions::pid, 0 resolved to recorder_pid)
  uint64_t recorder_pid = 0;            // the host pid of the process `ttd record` started in
  // The recorded process's pid is the recorder's host pid: the host
  // answers for it (process group, session, parent, other processes).
  bool host_pid() const { return pid == recorder_pid; }
};

// What a process keeps across execve into the next program image's
// kernel (linux_kernel_exec.cpp): its descriptors without close-on-exec,
// working directory, umask, blocked mask, ignored signals, pid, children
// and the emulated streams' state. Handled signals go back to default.
struct ExecCarry {
  GuestFdTable fds;
  uint32_t umask = 022;
  uint64_t sigmask = 0;
  std::map<uint64_t, std::vector<uint8_t>> ignored_actions;  // raw struct sigaction of SIG_IGN signals
  uint64_t pid = 0;
  bool has_children = false;
  std::map<pid_t, int> children;
  uint64_t clock_ahead = 0;  // LinuxKernel::clock_ahead_: host waits so far
  StepTimer itimers[3];      // alarm and setitimer's timers survive execve (POSIX timers do not)
  size_t stdin_pos = 0;
  std::string out[2];
  uint64_t next_pipe_id = 1;
  std::map<uint64_t, uint64_t> pipe_changes;
  bool capture_output = false;
  uint64_t random_state = 0;
  GuestRlimits rlimits;
};

}  // namespace ttd::rec
