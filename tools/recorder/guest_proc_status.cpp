// /proc/self/status, stat and statm of the guest (guest_proc_status.h).
#include "tools/recorder/guest_proc_status.h"

#include <cinttypes>
#include <cstdio>
#include <map>
#include <vector>

namespace ttd::rec {

namespace {

constexpr uint64_t kPage = 4096;
constexpr uint64_t kTicksPerNano = 10000000;  // USER_HZ 100: one tick per 10 ms

// What Linux 6.1 prints for a process without privileges, used when the
// recorder's own status cannot be read; the guest's lines replace the
// ones it knows.
constexpr std::string_view kLinuxStatus =
    "Name:\t\nUmask:\t\nState:\t\nTgid:\t\nNgid:\t0\nPid:\t\nPPid:\t\nTracerPid:\t0\n"
    "Uid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\nFDSize:\t\nGroups:\t\nNStgid:\t\nNSpid:\t\nNSpgid:\t\nNSsid:\t\n"
    "VmPeak:\t\nVmSize:\t\nVmLck:\t\nVmPin:\t\nVmHWM:\t\nVmRSS:\t\nRssAnon:\t\nRssFile:\t\nRssShmem:\t\n"
    "VmData:\t\nVmStk:\t\nVmExe:\t\nVmLib:\t\nVmPTE:\t\nVmSwap:\t\nHugetlbPages:\t\nCoreDumping:\t0\n"
    "THP_enabled:\t1\nThreads:\t\nSigQ:\t0/31421\nSigPnd:\t\nShdPnd:\t\nSigBlk:\t\nSigIgn:\t\nSigCgt:\t\n"
    "CapInh:\t0000000000000000\nCapPrm:\t0000000000000000\nCapEff:\t0000000000000000\n"
    "CapBnd:\t000001ffffffffff\nCapAmb:\t0000000000000000\nNoNewPrivs:\t0\nSeccomp:\t0\n"
    "Seccomp_filters:\t0\nSpeculation_Store_Bypass:\tthread vulnerable\n"
    "SpeculationIndirectBranch:\tconditional enabled\nCpus_allowed:\t\nCpus_allowed_list:\t\n"
    "Mems_allowed:\t00000000,00000001\nMems_allowed_list:\t0\nvoluntary_ctxt_switches:\t\n"
    "nonvoluntary_ctxt_switches:\t\n";

std::string fmt(const char* f, auto... v) {
  char buf[256];
  const int n = std::snprintf(buf, sizeof buf, f, v...);
  return std::string(buf, n > 0 ? size_t(n) : 0);
}

std::string kb(uint64_t bytes) { return fmt("%8" PRIu64 " kB", bytes / 1024); }
std::string mask16(uint64_t m) { return fmt("%016" PRIx64, m); }

// "0-1,3": Linux's %*pbl of a CPU mask.
std::string cpu_list(uint64_t m) {
  std::string out;
  for (int i = 0; i < 64;) {
    if (!((m >> i) & 1)) {
      ++i;
      continue;
    }
    int j = i;
    while (j + 1 < 64 && ((m >> (j + 1)) & 1)) ++j;
    out += (out.empty() ? "" : ",") + std::to_string(i) + (j > i ? "-" + std::to_string(j) : "");
    i = j + 1;
  }
  return out;
}

std::map<std::string, std::string, std::less<>> guest_status_values(const ProcStatusInput& in) {
  const ProcMemory mem = proc_memory(in);
  const std::string pid = std::to_string(in.pid), tid = std::to_string(in.tid);
  return {
      {"Name", in.name},
      {"Umask", fmt("%04o", in.umask)},
      {"State", "R (running)"},
      {"Tgid", pid},
      {"Pid", tid},
      {"PPid", std::to_string(in.ppid)},
      {"TracerPid", "0"},
      {"FDSize", std::to_string(in.fd_size)},
      {"NStgid", pid},
      {"NSpid", tid},
      {"NSpgid", pid},
      {"NSsid", pid},
      {"VmPeak", kb(mem.size)},
      {"VmSize", kb(mem.size)},
      {"VmLck", kb(0)},
      {"VmPin", kb(0)},
      {"VmHWM", kb(mem.size)},
      {"VmRSS", kb(mem.size)},
      {"RssAnon", kb(mem.anon)},
      {"RssFile", kb(mem.file)},
      {"RssShmem", kb(0)},
      {"VmData", kb(mem.data)},
      {"VmStk", kb(mem.stack)},
      {"VmExe", kb(mem.exe)},
      {"VmLib", kb(mem.lib)},
      {"VmPTE", kb(0)},
      {"VmSwap", kb(0)},
      {"HugetlbPages", kb(0)},
      {"Threads", std::to_string(in.threads)},
      {"SigPnd", mask16(in.sig_pending)},
      {"ShdPnd", mask16(in.shared_pending)},
      {"SigBlk", mask16(in.blocked)},
      {"SigIgn", mask16(in.ignored)},
      {"SigCgt", mask16(in.caught)},
      {"Cpus_allowed", fmt("%" PRIx64, in.cpus_allowed)},
      {"Cpus_allowed_list", cpu_list(in.cpus_allowed)},
      {"voluntary_ctxt_switches", "0"},
      {"nonvoluntary_ctxt_switches", "0"},
  };
}

}  // namespace

ProcMemory proc_memory(const ProcStatusInput& in) {
  ProcMemory m;
  if (!in.regions) return m;
  for (const auto& [start, r] : in.regions->all()) {
    m.size += r.size;
    const bool anon = r.name.empty() || r.name[0] == '[';
    (anon ? m.anon : m.file) += r.size;
    if (r.name == "[stack]") m.stack += r.size;
    else if (anon && (r.prot & kProtWrite)) m.data += r.size;  // Linux: private writable, not stack
    if ((r.prot & kProtExec) && !anon) (r.name == in.exe_path ? m.exe : m.lib) += r.size;
  }
  return m;
}

std::string render_proc_status(const ProcStatusInput& in, std::string_view host_status) {
  const auto values = guest_status_values(in);
  const std::string_view src = host_status.empty() ? kLinuxStatus : host_status;
  std::string out;
  size_t at = 0;
  while (at < src.size()) {
    size_t end = src.find('\n', at);
    if (end == std::string_view::npos) end = src.size();
    const std::string_view line = src.substr(at, end - at);
    at = end + 1;
    const size_t colon = line.find(':');
    const auto it = colon == std::string_view::npos ? values.end() : values.find(line.substr(0, colon));
    if (it != values.end()) {
      out += std::string(line.substr(0, colon)) + ":\t" + it->second + "\n";
    } else if (line.substr(0, colon == std::string_view::npos ? 0 : colon) == "SigQ") {
      // queued/limit: the host user's queued signals change with other
      // processes; the guest's own count, with the host's limit.
      const size_t slash = line.find('/');
      out += "SigQ:\t" + std::to_string(in.queued_signals) +
             std::string(slash == std::string_view::npos ? "/0" : line.substr(slash)) + "\n";
    } else {
      out += std::string(line) + "\n";
    }
  }
  return out;
}

std::string render_proc_stat(const ProcStatusInput& in) {
  const ProcMemory mem = proc_memory(in);
  const uint64_t ticks = in.steps / kTicksPerNano;
  constexpr uint64_t kOld = 0x7fffffff;  // the obsolete signal fields show 31 bits
  // Fields 1-52 (proc(5)): pid (comm) state ppid pgrp session tty_nr tpgid
  // flags minflt cminflt majflt cmajflt utime stime cutime cstime priority
  // nice num_threads itrealvalue starttime vsize rss rsslim startcode
  // endcode startstack kstkesp kstkeip signal blocked sigignore sigcatch
  // wchan nswap cnswap exit_signal processor rt_priority policy
  // delayacct_blkio_ticks guest_time cguest_time start_data end_data
  // start_brk arg_start arg_end env_start env_end exit_code.
  std::string out = std::to_string(in.tid) + " (" + in.name + ") R " + std::to_string(in.ppid) + " ";
  out += fmt("%" PRIu64 " %" PRIu64 " 0 -1 4194304 0 0 0 0 %" PRIu64 " 0 0 0 20 0 %u 0 0 %" PRIu64 " %" PRIu64
             " 18446744073709551615 0 0 0 0 0 ",
             in.pgrp, in.session, ticks, in.threads, mem.size, mem.size / kPage);
  out += fmt("%" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " 0 0 0 17 0 0 0 0 0 0 0 0 ",
             (in.sig_pending | in.shared_pending) & kOld, in.blocked & kOld, in.ignored & kOld, in.caught & kOld);
  out += fmt("%" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " 0\n", in.start_brk, in.arg_start,
             in.arg_end, in.env_start, in.env_end);
  return out;
}

std::string render_proc_statm(const ProcStatusInput& in) {
  const ProcMemory mem = proc_memory(in);
  return fmt("%" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " 0 %" PRIu64 " 0\n", mem.size / kPage, mem.size / kPage,
             mem.file / kPage, mem.exe / kPage, (mem.data + mem.stack) / kPage);
}

}  // namespace ttd::rec
