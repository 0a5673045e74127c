// The guest's /proc/self/status, stat and statm as text
// (tools/recorder/guest_proc_status.h), and the step timers behind POSIX
// timers and timerfds (step_timer.h, guest_posix_timers.h,
// guest_timerfd.h), without a recording.
#include <doctest/doctest.h>

#include <sstream>
#include <string>
#include <vector>

#include "tools/recorder/guest_posix_timers.h"
#include "tools/recorder/guest_proc_files.h"
#include "tools/recorder/guest_proc_status.h"
#include "tools/recorder/guest_timerfd.h"

using namespace ttd;
using namespace ttd::rec;

namespace {

ProcStatusInput sample(const MemoryRegions& regions) {
  ProcStatusInput in;
  in.name = "worker";
  in.pid = in.tid = 4242;
  in.ppid = 1;
  in.pgrp = 4242;
  in.session = 4241;
  in.threads = 3;
  in.blocked = 1ull << 11;             // SIGUSR2
  in.ignored = 1ull << 12;             // SIGPIPE
  in.caught = (1ull << 9) | (1ull << 33);  // SIGUSR1, SIGRTMIN+2
  in.queued_signals = 1;
  in.cpus_allowed = 1;
  in.steps = 25000000;                 // 25 ms: two clock ticks
  in.regions = &regions;
  in.exe_path = "/bin/prog";
  in.start_brk = 0x500000;
  in.arg_start = 0x7ffd000;
  in.arg_end = 0x7ffd010;
  in.env_start = 0x7ffd010;
  in.env_end = 0x7ffd020;
  return in;
}

MemoryRegions sample_regions() {
  MemoryRegions r;
  r.map({0x400000, 0x2000, kProtRead | kProtExec, "/bin/prog"});
  r.map({0x500000, 0x3000, kProtRead | kProtWrite, "[heap]"});
  r.map({0x7000000, 0x1000, kProtRead | kProtExec, "/lib/libc.so.6"});
  r.map({0x7ff0000, 0x4000, kProtRead | kProtWrite, "[stack]"});
  return r;
}

std::vector<std::string> words(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

}  // namespace

TEST_CASE("proc status: the guest's lines replace the host's, the rest stay in the host's order") {
  const MemoryRegions regions = sample_regions();
  const std::string host =
      "Name:\tttd\nUmask:\t0002\nState:\tS (sleeping)\nTgid:\t999\nPid:\t999\nPPid:\t998\n"
      "Uid:\t1000\t1000\t1000\t1000\nGroups:\t4 24 \nVmSize:\t  900000 kB\nThreads:\t7\n"
      "SigBlk:\t0000000000000000\nSigIgn:\t0000000000001000\nSigCgt:\t0000000180004002\n"
      "SigQ:\t3/62892\nCapBnd:\t000001ffffffffff\nCpus_allowed:\tff\nCpus_allowed_list:\t0-7\n";
  const std::string s = render_proc_status(sample(regions), host);
  CHECK(s ==
        "Name:\tworker\nUmask:\t0022\nState:\tR (running)\nTgid:\t4242\nPid:\t4242\nPPid:\t1\n"
        "Uid:\t1000\t1000\t1000\t1000\nGroups:\t4 24 \nVmSize:\t      40 kB\nThreads:\t3\n"
        "SigBlk:\t0000000000000800\nSigIgn:\t0000000000001000\nSigCgt:\t0000000200000200\n"
        "SigQ:\t1/62892\nCapBnd:\t000001ffffffffff\nCpus_allowed:\t1\nCpus_allowed_list:\t0\n");
}

TEST_CASE("proc status: without the host's, Linux 6.1's lines with the guest's values") {
  const MemoryRegions regions = sample_regions();
  const std::string s = render_proc_status(sample(regions), "");
  CHECK(s.rfind("Name:\tworker\nUmask:\t0022\nState:\tR (running)\nTgid:\t4242\nNgid:\t0\nPid:\t4242\n", 0) == 0);
  CHECK(s.find("\nVmRSS:\t      40 kB\nRssAnon:\t      28 kB\nRssFile:\t      12 kB\n") != std::string::npos);
  CHECK(s.find("\nVmData:\t      12 kB\nVmStk:\t      16 kB\nVmExe:\t       8 kB\nVmLib:\t       4 kB\n") !=
        std::string::npos);
  CHECK(s.find("\nThreads:\t3\n") != std::string::npos);
  CHECK(s.find("\nnonvoluntary_ctxt_switches:\t0\n") != std::string::npos);
}

TEST_CASE("proc stat: 52 fields in Linux's order, the guest's pid, comm, threads, sizes and signals") {
  const MemoryRegions regions = sample_regions();
  ProcStatusInput in = sample(regions);
  const std::string s = render_proc_stat(in);
  REQUIRE(s.back() == '\n');
  const std::vector<std::string> f = words(s);
  REQUIRE(f.size() == 52);
  CHECK(f[0] == "4242");
  CHECK(f[1] == "(worker)");
  CHECK(f[2] == "R");
  CHECK(f[3] == "1");            // ppid
  CHECK(f[4] == "4242");         // pgrp
  CHECK(f[5] == "4241");         // session
  CHECK(f[13] == "2");           // utime: 25 ms in 10 ms ticks
  CHECK(f[19] == "3");           // num_threads
  CHECK(f[21] == "0");           // starttime: the clock's start
  CHECK(f[22] == "40960");       // vsize
  CHECK(f[23] == "10");          // rss in pages
  CHECK(f[31] == "2048");        // blocked
  CHECK(f[32] == "4096");        // sigignore
  CHECK(f[33] == "512");         // sigcatch: 31 bits only, SIGRTMIN+2 is not shown
  CHECK(f[37] == "17");          // exit_signal
  CHECK(f[46] == std::to_string(0x500000));
  CHECK(f[50] == std::to_string(0x7ffd020));
  CHECK(f[51] == "0");
  // A thread's stat has its tid first.
  in.tid = 4243;
  CHECK(words(render_proc_stat(in))[0] == "4243");
}

TEST_CASE("proc statm: pages of size, resident, shared, text, lib, data, dt") {
  const MemoryRegions regions = sample_regions();
  CHECK(render_proc_statm(sample(regions)) == "10 10 3 2 0 7 0\n");
}

TEST_CASE("proc paths: status, stat and statm of self, thread-self and the guest's pid") {
  CHECK(proc_self_path("/proc/self/status", 4242).entry == ProcSelfEntry::Status);
  CHECK(proc_self_path("/proc/4242/stat", 4242).entry == ProcSelfEntry::Stat);
  CHECK(proc_self_path("/proc/self/statm", 4242).entry == ProcSelfEntry::Statm);
  const ProcSelfPath t = proc_self_path("/proc/thread-self/status", 4242);
  CHECK(t.entry == ProcSelfEntry::Status);
  CHECK(t.thread_self);
  CHECK_FALSE(proc_self_path("/proc/self/status", 4242).thread_self);
  CHECK(proc_self_path("/proc/4243/status", 4242).entry == ProcSelfEntry::None);
  CHECK(proc_self_path("/proc/self/stats", 4242).entry == ProcSelfEntry::None);
}

TEST_CASE("step timers: a periodic timer counts the periods it missed, a one-shot disarms") {
  StepTimer t{100, 10};
  CHECK(t.expire(99) == 0);
  CHECK(t.expire(100) == 1);
  CHECK(t.expiry == 110);
  CHECK(t.expire(135) == 3);  // 110, 120, 130
  CHECK(t.expiry == 140);
  CHECK(t.left(135) == 5);
  StepTimer once{50, 0};
  CHECK(once.expire(70) == 1);
  CHECK_FALSE(once.armed());
  CHECK(once.expire(1000) == 0);
  // Absolute times: CLOCK_REALTIME counts from the epoch, a past time is due now.
  const StepClock c{1000000};
  CHECK(c.step_at(kClockRealtime, 1000500, 10) == 500);
  CHECK(c.step_at(kClockMonotonic, 500, 10) == 500);
  CHECK(c.step_at(kClockRealtime, 5, 10) == 10);
  CHECK_FALSE(timespec_ns(0, 1000000000));
  CHECK_FALSE(timespec_ns(-1, 0));
  CHECK(*timespec_ns(2, 5) == 2000000005);
}

TEST_CASE("timerfd: expirations add up until read, settime drops them") {
  GuestTimerfd t(kClockMonotonic, false);
  t.arm(100, 10);
  CHECK_FALSE(t.expire(50));
  CHECK_FALSE(t.ticks()->readable());
  CHECK(t.expire(125));  // 100, 110, 120
  uint64_t v = 0;
  CHECK(t.ticks()->read(v) == 8);
  CHECK(v == 3);
  CHECK(t.ticks()->read(v) == -EAGAIN);
  t.expire(130);
  t.arm(0, 0);  // disarmed: the unread expiration is gone
  CHECK_FALSE(t.ticks()->readable());
  CHECK(t.due() == ~uint64_t(0));
}

TEST_CASE("posix timers: ids in order, the earliest notifying timer is due, overruns saturate") {
  GuestPosixTimers timers;
  PosixTimerEvent none;
  none.notify = kSigevNone;
  const int a = timers.create(kClockMonotonic, PosixTimerEvent{});
  const int b = timers.create(kClockRealtime, none);
  CHECK(a == 0);
  CHECK(b == 1);
  timers.get(a)->timer = {500, 0};
  timers.get(b)->timer = {100, 0};  // SIGEV_NONE: never fired, so never due
  CHECK(timers.due() == 500);
  CHECK(timers.remove(a));
  CHECK_FALSE(timers.remove(a));
  CHECK(timers.due() == ~uint64_t(0));
  CHECK(timers.create(kClockMonotonic, PosixTimerEvent{}) == 2);
  CHECK(GuestPosixTimers::add_overrun(5, 3) == 8);
  CHECK(GuestPosixTimers::add_overrun(0x7ffffff0, 100) == 0x7fffffff);
}
