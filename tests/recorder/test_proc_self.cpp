// The program's own /proc entries under the recorder (programs/proc_self.c):
// opened on the host, /proc/self was the recorder's process, so glibc's
// pthread_getattr_np, gnulib's stack-overflow handler and anything printing
// its own command line saw the recorder's map and arguments. Recorded, the
// program must print what it prints natively.
#include <doctest/doctest.h>

#include <filesystem>

#include "tests/recorder/recording_support.h"
#include "tools/recorder/guest_proc_files.h"

using namespace ttd;
using namespace ttd::rec;
namespace fs = std::filesystem;

TEST_CASE("/proc/self: maps, cmdline, environ, auxv, exe and fd links are the program's, as natively") {
  int ran = 0;
  for (const char* variant : {"x86_64", "x86_64-glibc", "x86_64-dyn", "x86_64-nopie"}) {
    const std::string prog = test::program_path(variant, "proc_self");
    if (prog.empty()) continue;
    INFO(std::string(variant));
    const test::NativeRun native = test::run_native({prog, "an argument", ""});
    REQUIRE(native.status == 0);
    // What Linux says, whatever the recorder does.
    REQUIRE(native.out.find("maps: every line parses 1, main's code in an x mapping of the program 1, sp in rw 1\n") == 0);
    REQUIRE(native.out.find("environ 9: LC_ALL=C\n") != std::string::npos);
    REQUIRE(native.out.find(" 0\n") == std::string::npos);  // every check holds natively
    const std::string out = test::temp_trace(std::string("proc-self-") + variant);
    RecordOptions o = test::capture_options({prog, "an argument", ""}, out);
    o.env = {"LC_ALL=C"};
    test::check_records_like_native(o, native.out);
    fs::remove(out);
    ++ran;
  }
  CHECK(ran > 0);
}

TEST_CASE("/proc/self paths: which name the guest's own entries") {
  CHECK(proc_self_path("/proc/self/maps", 4242).entry == ProcSelfEntry::Maps);
  CHECK(proc_self_path("/proc/thread-self/cmdline", 4242).entry == ProcSelfEntry::Cmdline);
  CHECK(proc_self_path("/proc/4242/auxv", 4242).entry == ProcSelfEntry::Auxv);
  CHECK(proc_self_path("/proc/4243/maps", 4242).entry == ProcSelfEntry::None);  // another process: the host's
  CHECK(proc_self_path("/proc/self/status", 4242).entry == ProcSelfEntry::Status);  // guest_proc_status.h
  CHECK(proc_self_path("/proc/self/mountinfo", 4242).entry == ProcSelfEntry::None);
  CHECK(proc_self_path("/proc/selfish/maps", 4242).entry == ProcSelfEntry::None);
  CHECK(proc_self_path("/proc/self/fd/", 4242).entry == ProcSelfEntry::None);
  CHECK(proc_self_path("/proc/self/fd/-1", 4242).entry == ProcSelfEntry::None);
  CHECK(proc_self_path("/proc/self/fd/99999999999", 4242).entry == ProcSelfEntry::None);
  const ProcSelfPath fd = proc_self_path("/proc/4242/fd/17", 4242);
  CHECK(fd.entry == ProcSelfEntry::Fd);
  CHECK(fd.fd == 17);
  CHECK(proc_self_path("maps", 4242).entry == ProcSelfEntry::None);
}

TEST_CASE("/proc/self/maps lines are in Linux's format, names from column 73") {
  MemoryRegions r;
  r.map({0x400000, 0x1000, kProtRead | kProtExec, "/usr/bin/prog"});
  r.map({0x7ffff000, 0x2000, kProtRead | kProtWrite, "[anon]"});
  r.map({0x7fff00000000, 0x1000, kProtRead | kProtWrite, "[stack]"});
  const std::string maps = render_proc_maps(r);
  CHECK(maps ==
        "00400000-00401000 r-xp 00000000 00:00 0                                  /usr/bin/prog\n"
        "7ffff000-80001000 rw-p 00000000 00:00 0 \n"
        "7fff00000000-7fff00001000 rw-p 00000000 00:00 0                          [stack]\n");
}
