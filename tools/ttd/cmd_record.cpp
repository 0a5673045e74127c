// ttd record -o OUT.ucir [--max-steps N] [--strict] -- PROGRAM [ARGS...]:
// runs a Linux ELF (x86-64, aarch64; static or dynamically linked) under
// the Unicorn recorder and writes a UCIR trace of the whole execution.
#include <csignal>
#include <ctime>
#include <iostream>
#include <optional>
#include <memory>
#include <string>
#include <vector>

#include "tools/recorder/host_signal_forwarding.h"
#include "tools/recorder/program_environment.h"
#include "tools/recorder/recorder.h"
#include "tools/ttd/commands.h"

extern char** environ;

namespace ttd::cli {

namespace {

struct RecordCliOptions {
  std::string output;
  uint64_t max_steps = 0;
  std::vector<std::string> command;  // PROGRAM ARGS...
  std::vector<std::string> env;      // --env NAME=VALUE
  bool clean_env = false;
  bool verify = false;
  bool strict = false;
  bool follow_fork = false;
  std::string sysroot;
  bool quiet = false;
  uint64_t quantum = rec::RecordOptions::kDefaultQuantum;
  std::optional<uint64_t> epoch;  // --epoch; default: now
  uint64_t pid = 0;               // --pid; default: the recorder's own
};

// Exit status, as rr's: the program's own once the trace is complete, so
// that `ttd record -- make test || ...` and test harnesses see what the
// program said (128 + N when it died of signal N, or faulted under
// emulation with it; 0 when --max-steps stopped it). 1 with a message
// when the recording failed (then no trace is left behind), 3 when every
// thread blocked for good (no native status exists for that).
int program_exit_status(const rec::RecordSummary& s) {
  if (s.exited) return s.exit_code & 0xff;  // 128 + N already when a signal ended it
  if (s.fault) return 128 + (s.signal ? s.signal : SIGSEGV);
  return 0;  // --max-steps
}

int run_record(const RecordCliOptions& o) {
  rec::RecordOptions ro;
  // What `ttd record` inherited the program inherits (`prog 3<file`).
  ro.inherit_fds = rec::inherited_descriptors();
  ro.output = o.output;
  ro.argv = o.command;
  ro.max_steps = o.max_steps;
  ro.verify = o.verify;
  ro.strict = o.strict;
  ro.follow_fork = o.follow_fork;
  // Where the recording goes on (execve, followed children): always said,
  // even with -q, since it names files the user did not.
  ro.notice = [](const std::string& line) { std::cerr << "ttd record: " << line << "\n" << std::flush; };
  ro.sysroot = o.sysroot;
  ro.quantum = o.quantum;
  ro.pid = o.pid;
  if (o.epoch) {
    ro.epoch_seconds = *o.epoch;
  } else {
    timespec now {};
    ::clock_gettime(CLOCK_REALTIME, &now);
    ro.epoch_seconds = uint64_t(now.tv_sec);
    ro.epoch_nanoseconds = uint32_t(now.tv_nsec);
  }
  std::vector<std::string> inherited;
  if (!o.clean_env)
    for (char** e = environ; e && *e; ++e) inherited.emplace_back(*e);
  auto env = rec::environment_with(std::move(inherited), o.env);
  if (!env) {
    std::cerr << "ttd record: " << env.error().to_string() << "\n";
    return 1;
  }
  ro.env = std::move(*env);

  auto summary = rec::record(ro);
  if (!summary) {
    std::cerr << "ttd record: " << summary.error().to_string() << "\n";
    return 1;
  }
  const rec::RecordSummary& s = *summary;
  if (!o.quiet) {
    std::cerr << "ttd record: wrote " << o.output;
    for (size_t i = 1; i < s.traces.size(); ++i) std::cerr << ", " << s.traces[i].path;
    std::cerr << "\n" << rec::describe(s);
  }
  if (o.verify) {
    bool clean = s.verify_errors.empty() && s.verify_register_misses == 0;
    std::cerr << "verify: " << (clean ? "the trace matches the emulator" : "MISMATCHES") << " ("
              << s.verify_register_mismatches << " register, " << s.verify_memory_mismatches << " memory page, "
              << s.verify_register_misses << " missed register changes)\n";
    for (const auto& e : s.verify_errors) std::cerr << "  " << e << "\n";
    if (!clean) return 1;
  }
  if (s.signal_from_outside) {
    // Ctrl-C or kill ended the program (its default action): the trace is
    // complete; the shell or parent that sent the signal sees `ttd record`
    // die of it, as the program would have (a script stops at Ctrl-C).
    std::cerr << std::flush;
    std::cout << std::flush;
    rec::die_of_signal(s.signal);
    return 128 + s.signal;  // a signal whose default is not to end the process
  }
  if (s.fault) {
    std::cerr << "ttd record: the trace ends at the fault\n";
    return program_exit_status(s);
  }
  if (s.deadlock) {
    std::cerr << "ttd record: the trace ends where every thread was blocked\n";
    return 3;
  }
  return program_exit_status(s);
}

}  // namespace

void add_record_command(CLI::App& app, CommandRunner& run) {
  auto o = std::make_shared<RecordCliOptions>();
  auto* sub = app.add_subcommand(
      "record", "run a Linux executable (x86-64, aarch64; static or dynamically linked) under emulation and "
      "write a UCIR trace");
  sub->add_option("-o,--output", o->output, "trace file to write (UCIR)")->required();
  sub->add_option("--max-steps", o->max_steps, "stop after this many steps (default: run to exit)");
  sub->add_option("--env", o->env,
                  "set NAME=VALUE in the program's environment, replacing an inherited NAME (repeatable)")
      ->allow_extra_args(false);
  sub->add_flag("--clean-env", o->clean_env, "start the program with an empty environment (plus --env)");
  sub->add_flag("--verify", o->verify,
                "self-check (slow): compare the trace's effects with the emulator at every step");
  sub->add_flag("--strict", o->strict,
                "fail at the first syscall the recorder cannot emulate (default: it returns -ENOSYS to the "
                "program and is listed in the summary)");
  sub->add_flag("--follow-fork", o->follow_fork,
                "record every child process too, each into its own trace OUT.PID.ucir (PID as the program "
                "sees it; default: children run unrecorded and their execve natively)");
  sub->add_option("--sysroot", o->sysroot,
                  "where a foreign architecture's dynamic loader and libraries live (default for aarch64 "
                  "programs: /usr/aarch64-linux-gnu)");
  sub->add_option("--quantum", o->quantum,
                  "threads take turns: at most N instructions each before the next runnable thread runs "
                  "(default 100000; they also switch at blocking futex waits, sched_yield and exit)")
      ->check(CLI::Range(uint64_t(1), uint64_t(1) << 40));
  sub->add_option("--epoch", o->epoch,
                  "the time (seconds since 1970) the program's clocks read at its first step; they advance "
                  "1 ns per step (default: now; give one, e.g. 1700000000, for traces that are identical "
                  "byte for byte between recordings)");
  sub->add_option("--pid", o->pid,
                  "the pid the program sees (default: the recorder's own, so that other processes reach it as "
                  "natively: kill $$, /proc/$$, a child's getppid; give one, e.g. 4242, with --epoch for traces "
                  "that are identical byte for byte; the program then leads its own process group and its "
                  "parent is pid 1)")
      ->check(CLI::Range(uint64_t(1), uint64_t(4194304)));
  sub->add_flag("-q,--quiet", o->quiet, "print nothing on success");
  sub->add_option("command", o->command, "-- PROGRAM [ARGS...]: the program and its arguments")->required();
  sub->footer(
      "PROGRAM without a slash is looked up in the program's PATH, as a shell does.\n"
      "The program's stdin, stdout and stderr are the recorder's. It opens, reads and writes host\n"
      "files as it would natively (the recorder is not a sandbox). Syscalls the recorder cannot\n"
      "emulate return -ENOSYS to the program and are listed in the summary (--strict: fail instead).\n"
      "Exit status, once the trace is complete: the program's own (128 + N if it died of signal N or\n"
      "faulted under emulation; 0 if --max-steps stopped it). Otherwise 1 recording failed (a message\n"
      "says why and no trace is left), 2 usage error, 3 every thread blocked (the trace ends there).\n"
      "An execve of the program goes on in OUT.1.ucir, OUT.2.ucir ...; the summary and the\n"
      "exit status it reports are the last program's.\n"
      "Ctrl-C, kill and other signals sent to `ttd record` (SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1,\n"
      "SIGUSR2, SIGALRM, SIGWINCH) go to the program: its handler runs, or it dies of the signal, the\n"
      "trace ends complete with that death, and `ttd record` then dies of the same signal. SIGKILL\n"
      "leaves the trace cut short; the readers read what was written before.");
  sub->callback([o, &run] { run = [o] { return run_record(*o); }; });
}

}  // namespace ttd::cli
