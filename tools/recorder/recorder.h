// `ttd record`: runs a Linux ELF (x86-64, aarch64; static, or dynamically
// linked with its program interpreter) under Unicorn and
// writes a usercorn-compatible UCIR trace of every instruction, its memory
// accesses and register changes, and the kernel effects of its syscalls.
//
// The recorder emulates one Linux process and its threads (run in turns
// in one emulator, deterministically): the program's
// syscalls are answered by a small in-process kernel (tools/recorder/
// linux_*.cpp); syscalls it does not know return -ENOSYS and are listed in
// the summary, never dropped silently.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "state/arch.h"
#include "state/error.h"
#include "state/register_file.h"

namespace ttd::rec {

// The emulator as it is right before an instruction executes (handed to
// RecordOptions::on_step). Valid only during the callback.
class LiveState {
 public:
  virtual ~LiveState() = default;
  virtual const ArchDesc& arch() const = 0;
  // Address of the instruction about to run (= the pc of step `eid`).
  virtual uint64_t pc() const = 0;
  // Every register that has a Unicorn id (the pc included), read from the
  // emulator now; registers it cannot tell are left invalid.
  virtual const RegisterFile& registers() const = 0;
  // Guest memory; false if any byte of the range is not mapped.
  virtual bool read_memory(uint64_t addr, std::span<uint8_t> out) const = 0;
};

struct RecordOptions {
  std::string output;             // UCIR file to write
  std::vector<std::string> argv;  // argv[0] is the program to run
  std::vector<std::string> env;   // "NAME=value" strings given to the guest
  uint64_t max_steps = 0;         // stop after this many steps (0 = no limit)
  // Called before each instruction with its EID (= steps recorded so far).
  std::function<void(uint64_t eid, const LiveState&)> on_step;

  // Guest stdin: the given bytes, or the recorder's own stdin when unset.
  std::optional<std::string> stdin_data;
  // Descriptors above 2 the program gets with the same numbers, as it
  // would inherit them natively (`prog 3<file`, a socket a supervisor
  // passes): `ttd record` passes what it inherited itself
  // (inherited_descriptors() below); a library caller chooses.
  std::vector<int> inherit_fds;
  // Capture the guest's stdout/stderr into the summary instead of writing
  // them to the recorder's stdout/stderr.
  bool capture_output = false;
  // Self-check for tests: mirror every emitted register and memory effect,
  // compare the mirror with the emulator before each instruction (registers)
  // and at the end (all mapped memory), and report differences in the
  // summary. Slow (reads every register every step).
  bool verify = false;
  // Stop at the first syscall the emulated kernel cannot answer (record()
  // then fails naming it, and removes the output) instead of returning
  // -ENOSYS to the program and listing it in the summary.
  bool strict = false;
  // Prefix for the program interpreter and for absolute paths the guest
  // opens, when that prefix holds them (a foreign architecture's libraries,
  // like qemu-user's -L). Empty: /usr/aarch64-linux-gnu for dynamically
  // linked aarch64 programs on a non-aarch64 host, else none.
  std::string sysroot;
  // Threads take turns: one runs at most this many instructions before
  // the next runnable one gets the CPU (it also yields at a blocking futex
  // wait, sched_yield and exit). Part of what makes a recording
  // reproducible: the same quantum gives the same interleaving.
  uint64_t quantum = kDefaultQuantum;
  static constexpr uint64_t kDefaultQuantum = 100000;
  // The wall-clock time (seconds since 1970) the program's clocks read at
  // its first step; they then advance 1 ns per step. Fixed by default so a
  // recording is reproducible byte for byte; `ttd record` gives the time
  // the recording starts, so `ls -l` and `date` print what they would.
  uint64_t epoch_seconds = kFixedEpochSeconds;
  // And the nanoseconds within that second (0-999999999): `ttd record`
  // gives them, so a file modified in the second the recording starts is
  // not in the program's future (make warned "modification time 0.62 s in
  // the future").
  uint32_t epoch_nanoseconds = 0;
  static constexpr uint64_t kFixedEpochSeconds = 1700000000;  // 2023-11-14 22:13:20 UTC
  // The pid the recorded process sees (getpid, its main thread's tid;
  // thread n has pid + n - 1). 0: the recorder's own host pid, which
  // `ttd record` gives so that other processes reach the program by it as
  // natively (a child's getppid, kill $$, /proc/$$, ps -p $$). Fixed by
  // default so a recording is reproducible byte for byte; with a fixed
  // pid the process leads its own process group and session, its parent
  // is pid 1, and it signals no other process until it has made a child.
  uint64_t pid = kFixedPid;
  static constexpr uint64_t kFixedPid = 4242;
  // Record every child process too (fork, vfork, clone without
  // CLONE_THREAD), each into its own trace named after its pid
  // (recording_chain.h), instead of running it unrecorded; its execve is
  // then recorded as the recorded process's is.
  bool follow_fork = false;
  // Lines for people, as the recording goes on in another trace (an
  // execve, a followed child starting and ending); `ttd record` prints
  // them on stderr. Called in the process that writes the trace (a
  // followed child is a fork of the recorder).
  std::function<void(const std::string&)> notice;
};

struct UnsupportedSyscall {
  uint64_t number = 0;
  std::string name;  // "unknown" when the number is not in our table
  uint64_t count = 0;
};

struct RecordedTrace {
  std::string path;     // the trace file
  std::string program;  // what it recorded (the program's path as executed)
  uint64_t steps = 0;
};

// A chain of traces (an execve continues the recording in the next one):
// `traces` lists them in order; the other fields are the last one's (its
// steps, exit status, fault), except `unsupported`, the verify figures and
// the times, which add up over the chain.
struct RecordSummary {
  ArchId arch = ArchId::X86_64;
  std::vector<RecordedTrace> traces;
  uint64_t steps = 0;     // = number of step records in the trace
  uint64_t syscalls = 0;  // syscall records written
  bool exited = false;    // the program called exit / exit_group or died of a signal
  int exit_code = 0;      // its exit status (128 + signal when killed)
  int signal = 0;         // the signal that killed it (fault: SIGSEGV / SIGBUS / SIGILL / SIGFPE / SIGTRAP), else 0
  // That signal was sent to the recorder from outside (Ctrl-C, kill) and
  // forwarded to the program (host_signal_forwarding.h): `ttd record`
  // then dies of it too, after the trace is complete, as the program would.
  bool signal_from_outside = false;
  bool hit_max_steps = false;
  std::optional<std::string> fault;  // emulator fault that ended the run, with the pc
  // Every thread waited for another (futex waits without a timeout): the
  // trace ends there; which thread waited on what.
  std::optional<std::string> deadlock;
  uint32_t threads = 1;  // threads the program ran, the main one included
  std::vector<UnsupportedSyscall> unsupported;
  std::string captured_stdout, captured_stderr;  // with capture_output
  double seconds = 0;      // wall time of the emulation loop
  double cpu_seconds = 0;  // CPU time of the emulator thread in it (the trace is written on another)

  // With verify: descriptions of the first mismatches found (empty = the
  // trace's effects agree with the emulator everywhere checked).
  std::vector<std::string> verify_errors;
  uint64_t verify_register_mismatches = 0;
  uint64_t verify_memory_mismatches = 0;  // pages that differ at the end
  // Register changes the fast path (per-pc register sets) would have
  // missed after a pc's first execution; 0 means fast and verify mode
  // write the same trace.
  uint64_t verify_register_misses = 0;
};

// Loads and runs the program, writing the trace to options.output; an
// execve of it goes on in the next trace of the chain, and with
// follow_fork each child in its own (recording_chain.h). Errors
// (cannot read the program or its interpreter, not an ELF, unsupported
// architecture, cannot write the output, the dynamic loader gave up before
// the program started, --strict stopped at an unsupported syscall) come
// back as an Error and leave no output file; a guest that faults still
// gives a summary (with `fault` set) and a valid trace up to the fault.
Result<RecordSummary> record(const RecordOptions& options);

// "steps: N, exit status: S, ..." lines for people (used by `ttd record`).
std::string describe(const RecordSummary& s);

// The descriptors above 2 this process inherited: open, and not
// close-on-exec (anything this process opened itself, libraries included,
// is close-on-exec, as the project's code opens everything). Call first
// thing, before opening files.
std::vector<int> inherited_descriptors();

}  // namespace ttd::rec
