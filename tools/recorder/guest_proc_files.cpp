#include "tools/recorder/guest_proc_files.h"

#include <charconv>
#include <cinttypes>
#include <cstdio>

#include <unistd.h>

namespace ttd::rec {

namespace {

// Strips `prefix` from the front of `s`; false when it is not there.
bool eat(std::string_view& s, std::string_view prefix) {
  if (s.substr(0, prefix.size()) != prefix) return false;
  s.remove_prefix(prefix.size());
  return true;
}

// A decimal number up to the next '/' or the end, as /proc names them.
bool eat_number(std::string_view& s, int64_t& out) {
  const size_t n = s.find('/');
  const std::string_view digits = s.substr(0, n);
  if (digits.empty() || digits[0] == '+' || digits[0] == '-') return false;
  auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), out);
  if (ec != std::errc() || p != digits.data() + digits.size()) return false;
  s.remove_prefix(digits.size());
  return true;
}

}  // namespace

ProcSelfPath proc_self_path(std::string_view path, int64_t pid) {
  ProcSelfPath out;
  std::string_view s = path;
  int64_t n = 0;
  // /dev/fd is Linux's link to /proc/self/fd, and /dev/stdin, /dev/stdout
  // and /dev/stderr link to its first three entries: bash's process
  // substitution opens /dev/fd/63, which on the host is the recorder's.
  constexpr std::string_view kStdLinks[] = {"/dev/stdin", "/dev/stdout", "/dev/stderr"};
  for (int i = 0; i < 3; ++i)
    if (s == kStdLinks[i]) {
      out.entry = ProcSelfEntry::Fd;
      out.fd = i;
      out.std_link = true;
      return out;
    }
  if (eat(s, "/dev/fd")) {
    if (s.empty() || s == "/") out.entry = ProcSelfEntry::FdDir;
    else if (eat(s, "/") && eat_number(s, n) && s.empty() && n <= INT32_MAX) out.entry = ProcSelfEntry::Fd, out.fd = int(n);
    return out;
  }
  if (!eat(s, "/proc/")) return out;
  if (eat(s, "thread-self/")) {
    out.thread_self = true;
  } else if (!eat(s, "self/")) {
    if (!eat_number(s, n) || n != pid || !eat(s, "/")) return out;
  }
  if (s == "task" || s == "task/") {
    out.entry = ProcSelfEntry::TaskDir;
    return out;
  }
  if (!out.thread_self && eat(s, "task/")) {
    if (!eat_number(s, n) || n <= 0 || !eat(s, "/")) return out;
    out.tid = uint64_t(n);
  }
  if (s == "maps") out.entry = ProcSelfEntry::Maps;
  else if (s == "cmdline") out.entry = ProcSelfEntry::Cmdline;
  else if (s == "environ") out.entry = ProcSelfEntry::Environ;
  else if (s == "auxv") out.entry = ProcSelfEntry::Auxv;
  else if (s == "exe") out.entry = ProcSelfEntry::Exe;
  else if (s == "comm") out.entry = ProcSelfEntry::Comm;
  else if (s == "fd" || s == "fd/") out.entry = ProcSelfEntry::FdDir;
  else if (s == "status") out.entry = ProcSelfEntry::Status;
  else if (s == "stat") out.entry = ProcSelfEntry::Stat;
  else if (s == "statm") out.entry = ProcSelfEntry::Statm;
  else if (eat(s, "fd/") && eat_number(s, n) && s.empty() && n <= INT32_MAX) {
    out.entry = ProcSelfEntry::Fd;
    out.fd = int(n);
  }
  return out;
}

std::string render_proc_maps(const MemoryRegions& regions) {
  std::string out;
  char head[128];
  for (const auto& [start, r] : regions.all()) {
    // fs/proc/task_mmu.c show_map_vma: the fixed fields and a space, then
    // the name padded to start at column 73.
    const int n = std::snprintf(head, sizeof head, "%08" PRIx64 "-%08" PRIx64 " %c%c%cp %08x %02x:%02x %u ", r.start,
                                r.start + r.size, (r.prot & kProtRead) ? 'r' : '-', (r.prot & kProtWrite) ? 'w' : '-',
                                (r.prot & kProtExec) ? 'x' : '-', 0u, 0u, 0u, 0u);
    std::string line(head, size_t(n));
    if (!r.name.empty() && r.name != "[anon]") {
      if (line.size() < 73) line.append(73 - line.size(), ' ');
      line += r.name;
    }
    out += line;
    out += '\n';
  }
  return out;
}

std::string host_fd_target(int host_fd) {
  char buf[4096];
  const std::string link = "/proc/self/fd/" + std::to_string(host_fd);
  const ssize_t n = ::readlink(link.c_str(), buf, sizeof buf);
  return n > 0 && n < ssize_t(sizeof buf) ? std::string(buf, size_t(n)) : std::string();
}

}  // namespace ttd::rec
