// record(): the program `ttd record` started, then each program it
// executes, one trace each (recording_chain.h). A followed fork's child
// runs this same loop in its own (forked) recorder and ends there, with
// the status the parent's wait4 should see.
#include "tools/recorder/recording_chain.h"

#include <signal.h>
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <cstdlib>
#include <filesystem>

#include "tools/recorder/guest_execve.h"
#include "tools/recorder/host_signal_forwarding.h"
#include "tools/recorder/program_lookup.h"

namespace ttd::rec {

namespace {

std::string real_path(const std::string& p) {
  char buf[PATH_MAX];
  return ::realpath(p.c_str(), buf) ? std::string(buf) : p;
}

std::string insert_before_extension(const std::string& path, const std::string& part) {
  const size_t slash = path.find_last_of('/');
  const size_t dot = path.find_last_of('.');
  const bool has_ext = dot != std::string::npos && dot > 0 && (slash == std::string::npos || dot > slash + 1);
  if (!has_ext) return path + "." + part;
  return path.substr(0, dot) + "." + part + path.substr(dot);
}

// Adds the next image's summary to the chain's: the last image's fields,
// the chain's traces, unsupported calls, verify figures and times.
void merge(RecordSummary& chain, RecordSummary next) {
  std::vector<RecordedTrace> traces = std::move(chain.traces);
  traces.insert(traces.end(), next.traces.begin(), next.traces.end());
  std::vector<UnsupportedSyscall> unsupported = std::move(chain.unsupported);
  for (const UnsupportedSyscall& u : next.unsupported) {
    bool found = false;
    for (UnsupportedSyscall& have : unsupported)
      if (have.number == u.number && have.name == u.name) have.count += u.count, found = true;
    if (!found) unsupported.push_back(u);
  }
  std::vector<std::string> errors = std::move(chain.verify_errors);
  errors.insert(errors.end(), next.verify_errors.begin(), next.verify_errors.end());
  next.verify_register_mismatches += chain.verify_register_mismatches;
  next.verify_memory_mismatches += chain.verify_memory_mismatches;
  next.verify_register_misses += chain.verify_register_misses;
  next.seconds += chain.seconds;
  next.cpu_seconds += chain.cpu_seconds;
  chain = std::move(next);
  chain.traces = std::move(traces);
  chain.unsupported = std::move(unsupported);
  chain.verify_errors = std::move(errors);
}

// A followed child's recording is over: it ends as its program ended, so
// the parent's wait4 sees what Linux would show. Never returns into the
// caller of record(), which is the parent's.
[[noreturn]] void end_followed_child(const RecordOptions& opts, const Result<RecordSummary>& sum) {
  if (!sum) {
    if (opts.notice) opts.notice("child " + std::to_string(::getpid()) + ": " + sum.error().to_string());
    ::_exit(127);
  }
  if (opts.notice) {
    std::string what = describe(*sum);
    while (!what.empty() && what.back() == '\n') what.pop_back();
    opts.notice("child " + std::to_string(::getpid()) + " (" + sum->traces.front().path + "): " + what);
  }
  // A deadlock has no Linux equivalent (the child would hang): 127, as an
  // unrecorded child's. A fault is its signal, as Linux delivers it.
  if (sum->deadlock || (sum->fault && !sum->signal)) ::_exit(127);
  if (sum->signal) die_of_signal(sum->signal);
  ::_exit(sum->exit_code & 0xff);
}

}  // namespace

std::string chain_trace_name(const std::string& base, uint64_t n) {
  return n == 0 ? base : insert_before_extension(base, std::to_string(n));
}

std::string child_trace_name(const std::string& output, long pid) {
  return insert_before_extension(output, std::to_string(pid));
}

std::vector<int> inherited_descriptors() {
  std::vector<int> out;
  DIR* d = ::opendir("/proc/self/fd");
  if (!d) return out;
  const int own = ::dirfd(d);
  while (const dirent* e = ::readdir(d)) {
    char* end = nullptr;
    const long n = std::strtol(e->d_name, &end, 10);
    if (*end || end == e->d_name || n <= 2 || n == own) continue;
    const int flags = ::fcntl(int(n), F_GETFD);
    if (flags >= 0 && !(flags & FD_CLOEXEC)) out.push_back(int(n));
  }
  ::closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

Result<RecordSummary> record(const RecordOptions& opts) {
  if (opts.argv.empty() || opts.argv[0].empty()) return make_error("record", "no program to run");
  if (opts.output.empty()) return make_error("record", "no output file (-o) given");
  // A name without a slash is looked up in the program's PATH, as execvp
  // does; argv[0] stays as given. By an absolute path: the trace names
  // mappings by their file, and a reader takes only absolute names for
  // files it may open (a relative one would depend on the directory `ttd
  // serve` runs in). Symbolic links are kept there (/bin/sh stays
  // /bin/sh); /proc/self/exe resolves them, as Linux does.
  std::string path_storage;
  auto found = find_program(opts.argv[0], path_in_environment(opts.env, path_storage));
  if (!found) return found.error();
  const std::string& arg0 = *found;
  ImageSpec spec;
  spec.program = arg0[0] == '/' ? arg0 : std::filesystem::absolute(arg0).lexically_normal().string();
  spec.exe = real_path(arg0);
  spec.execfn = arg0;  // as execvp would pass it: as typed, or the PATH entry joined to the name
  spec.argv = opts.argv;
  spec.env = opts.env;
  // A `#!` script runs its interpreter, as execve would run it (the
  // interpreter, its argument, the script's path, the arguments).
  if (auto script = script_interpreter(spec.program, opts.argv, opts.env, opts.sysroot); !script)
    return script.error();
  else if (script->has_value()) {
    const ExecTarget& t = **script;
    spec.program = t.program;
    spec.exe = t.exe;
    spec.argv = t.argv;
  }
  spec.output = opts.output;
  // Ctrl-C, kill, timeout: to the program, until every trace is closed.
  HostSignalForwarding forwarding;
  spec.ignored_signals = forwarding.ignored_at_start();
  std::string base = opts.output;  // what the chain's names are made from
  const pid_t recorder = ::getpid();
  spec.recorder_pid = uint64_t(recorder);
  bool child = false;               // this process is a followed fork's child
  std::optional<RecordSummary> chain;
  std::string requested = spec.program;  // the path execve was given, for messages
  for (uint64_t n = 1;; ++n) {
    auto image = record_image(opts, std::move(spec));
    // A followed child may fail inside record_image (--strict, a trace it
    // cannot create): it must end there, never return into the parent's
    // caller, so the process is checked, not only what the image said.
    if (::getpid() != recorder) child = true;
    if (!image) {
      if (!chain) {
        if (child) end_followed_child(opts, image.error());
        return image.error();
      }
      // Past execve's point of no return Linux kills the process (SIGSEGV):
      // the earlier traces stand.
      chain->fault = "execve of " + requested + ": " + image.error().to_string();
      chain->exited = true;
      chain->signal = 11;
      chain->exit_code = 128 + 11;
      break;
    }
    if (image->forked_child) {
      // This process became a followed child inside record_image: its
      // chain starts over at its own trace.
      chain.reset();
      base = image->output;
      n = 1;
    }
    if (chain) merge(*chain, std::move(image->sum));
    else chain = std::move(image->sum);
    if (!image->exec) break;
    ExecTarget& x = *image->exec;
    spec = ImageSpec{};
    spec.program = x.program;
    spec.exe = x.exe;
    spec.execfn = x.requested.empty() ? x.program : x.requested;
    spec.argv = std::move(x.argv);
    spec.env = std::move(x.envp);
    spec.output = chain_trace_name(base, n);
    spec.carry = std::move(image->carry);
    spec.clock_base = image->clock_end;
    spec.first = false;
    spec.recorder_pid = uint64_t(recorder);
    requested = x.requested;
    if (opts.notice) opts.notice("execve " + x.requested + ": recording goes on in " + spec.output);
  }
  if (child) end_followed_child(opts, *chain);
  return std::move(*chain);
}

}  // namespace ttd::rec
