// The program's own /proc entries under the recorder (programs/proc_self.c):
// opened on the host, /proc/self was the recorder's process, so glibc's
// pthread_getattr_np, gnulib's stack-overflow handler and anything printing
// its own command line saw the recorder's map and arguments. Recorded, the
// program must print what it prints natively.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "tests/recorder/recording_support.h"
#include "tools/recorder/guest_dir_listing.h"
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
    REQUIRE(native.out.find("comm: proc_self\nPR_GET_NAME: proc_self\ncomm after PR_SET_NAME: a-name-longer-t\n") !=
            std::string::npos);
    // task/ was the recorder's: its own threads, none of the program's.
    REQUIRE(native.out.find("task/ with two workers: 3 entries, 3 of them ours\ntask/TID/stat is the worker's 1\n"
                            "task/TID/status: Pid the worker's 1, Tgid the process's 1\n"
                            "task/PID/stat of the main thread 1\ntask/ of a thread not there: -1 ENOENT\n"
                            "task/ after the joins: 1 entries, 1 of them ours\n") != std::string::npos);
    const std::string out = test::temp_trace(std::string("proc-self-") + variant);
    RecordOptions o = test::capture_options({prog, "an argument", ""}, out);
    o.env = {"LC_ALL=C"};
    test::check_records_like_native(o, native.out);
    fs::remove(out);
    ++ran;
  }
  CHECK(ran > 0);
}

TEST_CASE("/proc/self: AT_EXECFN and the task's name come from a relative path as given") {
  // The recorder gave AT_EXECFN the program's real path and the task the
  // name "prog" (/proc/self/comm was the recorder's "test_recorder").
  const std::string prog = test::program_path("x86_64-dyn", "proc_self");
  if (prog.empty()) return;
  const fs::path before = fs::current_path();
  fs::current_path(fs::path(prog).parent_path());
  const test::NativeRun native = test::run_native({"./proc_self", "an argument", ""});
  CHECK(native.status == 0);
  CHECK(native.out.find("AT_EXECFN is the path run 1\ncomm: proc_self\n") != std::string::npos);
  const std::string out = test::temp_trace("proc-self-relative");
  RecordOptions o = test::capture_options({"./proc_self", "an argument", ""}, out);
  o.env = {"LC_ALL=C"};
  test::check_records_like_native(o, native.out);
  fs::current_path(before);
  fs::remove(out);
}

TEST_CASE("inherited descriptors and the /proc/self/fd listing are the program's, as natively") {
  // The recorder gave the program fds 0-2 only (`ttd record -- sh -c 'cat
  // <&3' 3<file` failed with EBADF) and listed its own /proc/self/fd.
  int ran = 0;
  for (const char* variant : {"x86_64", "x86_64-glibc", "x86_64-dyn"}) {
    const std::string prog = test::program_path(variant, "fd_listing");
    if (prog.empty()) continue;
    INFO(std::string(variant));
    const std::string data = test::temp_trace(std::string("fd-listing-data-") + variant);
    {
      std::ofstream(data) << "given";
    }
    const int fd = ::open(data.c_str(), O_RDONLY);  // inherited: not close-on-exec
    REQUIRE(fd > 2);
    const test::NativeRun native = test::run_native({prog, std::to_string(fd)});
    REQUIRE(native.status == 0);
    REQUIRE(native.out.find("inherited " + std::to_string(fd) + " read 5: given\n") == 0);
    REQUIRE(native.out.find("rewound ") != std::string::npos);
    REQUIRE(native.out.find("seekdir to the fourth: 1\nopen for writing -1 Is a directory\n") != std::string::npos);
    ::lseek(fd, 0, SEEK_SET);
    const std::string out = test::temp_trace(std::string("fd-listing-") + variant);
    RecordOptions o = test::capture_options({prog, std::to_string(fd)}, out);
    o.env = {"LC_ALL=C"};
    o.inherit_fds = inherited_descriptors();
    test::check_records_like_native(o, native.out);
    ::close(fd);
    fs::remove(out);
    fs::remove(data);
    ++ran;
  }
  CHECK(ran > 0);
}

TEST_CASE("/proc/self paths: which name the guest's own entries") {
  CHECK(proc_self_path("/proc/self/fd", 4242).entry == ProcSelfEntry::FdDir);
  CHECK(proc_self_path("/proc/self/task", 4242).entry == ProcSelfEntry::TaskDir);
  CHECK(proc_self_path("/proc/4242/task/", 4242).entry == ProcSelfEntry::TaskDir);
  CHECK(proc_self_path("/proc/self/task/4243/stat", 4242).entry == ProcSelfEntry::Stat);
  CHECK(proc_self_path("/proc/self/task/4243/stat", 4242).tid == 4243);
  CHECK(proc_self_path("/proc/self/stat", 4242).tid == 0);
  CHECK(proc_self_path("/proc/self/task/4243/fd/3", 4242).fd == 3);
  CHECK(proc_self_path("/proc/self/task/x/stat", 4242).entry == ProcSelfEntry::None);
  CHECK(proc_self_path("/proc/self/task/0/stat", 4242).entry == ProcSelfEntry::None);
  CHECK(proc_self_path("/proc/self/task/4243", 4242).entry == ProcSelfEntry::None);  // the directory: the host's
  CHECK(proc_self_path("/proc/self/fd/", 4242).entry == ProcSelfEntry::FdDir);
  CHECK(proc_self_path("/proc/self/comm", 4242).entry == ProcSelfEntry::Comm);
  CHECK(proc_self_path("/proc/self/maps", 4242).entry == ProcSelfEntry::Maps);
  CHECK(proc_self_path("/proc/thread-self/cmdline", 4242).entry == ProcSelfEntry::Cmdline);
  CHECK(proc_self_path("/proc/4242/auxv", 4242).entry == ProcSelfEntry::Auxv);
  CHECK(proc_self_path("/proc/4243/maps", 4242).entry == ProcSelfEntry::None);  // another process: the host's
  CHECK(proc_self_path("/proc/self/status", 4242).entry == ProcSelfEntry::Status);  // guest_proc_status.h
  CHECK(proc_self_path("/proc/self/mountinfo", 4242).entry == ProcSelfEntry::None);
  CHECK(proc_self_path("/proc/selfish/maps", 4242).entry == ProcSelfEntry::None);
  CHECK(proc_self_path("/proc/self/fd/-1", 4242).entry == ProcSelfEntry::None);
  CHECK(proc_self_path("/proc/self/fd/99999999999", 4242).entry == ProcSelfEntry::None);
  // Linux's links into /proc/self/fd (bash's process substitution opens /dev/fd/63).
  CHECK(proc_self_path("/dev/fd/63", 4242).entry == ProcSelfEntry::Fd);
  CHECK(proc_self_path("/dev/fd/63", 4242).fd == 63);
  CHECK_FALSE(proc_self_path("/dev/fd/63", 4242).std_link);
  CHECK(proc_self_path("/dev/fd", 4242).entry == ProcSelfEntry::FdDir);
  CHECK(proc_self_path("/dev/fd/", 4242).entry == ProcSelfEntry::FdDir);
  CHECK(proc_self_path("/dev/fdx", 4242).entry == ProcSelfEntry::None);
  CHECK(proc_self_path("/dev/fd/x", 4242).entry == ProcSelfEntry::None);
  CHECK(proc_self_path("/dev/stderr", 4242).fd == 2);
  CHECK(proc_self_path("/dev/stdin", 4242).std_link);  // readlink of it is the host's: /proc/self/fd/0
  CHECK(proc_self_path("/dev/stdout/", 4242).entry == ProcSelfEntry::None);
  const ProcSelfPath fd = proc_self_path("/proc/4242/fd/17", 4242);
  CHECK(fd.entry == ProcSelfEntry::Fd);
  CHECK(fd.fd == 17);
  CHECK(proc_self_path("maps", 4242).entry == ProcSelfEntry::None);
}

TEST_CASE("/proc lists the guest's pid in place of the recorder's") {
  const std::string host = std::to_string(::getpid());
  bool guest = false, recorder = false, self = false;
  for (const GuestDirEntry& e : proc_root_entries(uint64_t(::getpid()), 4242)) {
    guest |= e.name == "4242";
    recorder |= e.name == host;
    self |= e.name == "self";
  }
  CHECK(guest);
  CHECK_FALSE(recorder);
  CHECK(self);
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

TEST_CASE("guest directory listing: records in linux_dirent64's layout, a buffer too small, seeking") {
  GuestDirListing d(proc_fd_entries({0, 1, 17}));
  std::vector<uint8_t> out;
  CHECK(d.read(8, out) == -EINVAL);  // not even one record fits: Linux's EINVAL
  REQUIRE(d.read(4096, out) > 0);
  std::vector<std::string> names;
  for (size_t at = 0; at < out.size();) {
    uint16_t reclen = 0;
    std::memcpy(&reclen, out.data() + at + 16, 2);
    REQUIRE(reclen % 8 == 0);
    names.emplace_back(reinterpret_cast<const char*>(out.data() + at + 19));
    at += reclen;
  }
  CHECK(names == std::vector<std::string>{".", "..", "0", "1", "17"});
  CHECK(d.read(4096, out) == 0);  // at the end
  CHECK(d.seek(3, SEEK_SET) == 3);
  REQUIRE(d.read(4096, out) > 0);
  CHECK(std::string(reinterpret_cast<const char*>(out.data() + 19)) == "1");
  CHECK(d.seek(0, SEEK_END) == -EINVAL);
}
