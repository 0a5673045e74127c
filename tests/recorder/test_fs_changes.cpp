// Calls that change the file system (programs/fs_changes.c): mkdir,
// rename, link, symlink, chmod, truncate, fallocate, utimensat, flock,
// copy_file_range, sendfile, mknod ... act on the host as natively. They
// were -ENOSYS: `git status` could not rename its lock file, `mkdir`, `mv`,
// `touch` and `cp` failed. Recorded, the program prints what it prints
// natively, in a scratch directory of its own.
#include <doctest/doctest.h>

#include <filesystem>

#include "tests/recorder/recording_support.h"

using namespace ttd;
using namespace ttd::rec;
namespace fs = std::filesystem;

TEST_CASE("file-system changes act on the host as natively") {
  int ran = 0;
  for (const char* variant : {"x86_64", "x86_64-glibc", "x86_64-dyn", "aarch64", "aarch64-dyn"}) {
    const std::string prog = test::program_path(variant, "fs_changes");
    if (prog.empty()) continue;
    INFO(std::string(variant));
    const std::string base = test::temp_trace(std::string("fs-changes-") + variant);
    const std::string native_dir = base + "-native", recorded_dir = base + "-recorded";
    fs::create_directories(native_dir);
    fs::create_directories(recorded_dir);
    std::string expected;
    if (std::string(variant).rfind("aarch64", 0) != 0) {
      const test::NativeRun native = test::run_native({prog, native_dir});
      REQUIRE(native.status == 0);
      expected = native.out;
    } else {
      // No AArch64 CPU here: the x86-64 glibc build's native output, which
      // the same source prints on any Linux.
      const std::string x86 = test::program_path("x86_64-glibc", "fs_changes");
      if (x86.empty()) continue;
      const test::NativeRun native = test::run_native({x86, native_dir});
      REQUIRE(native.status == 0);
      expected = native.out;
    }
    REQUIRE(expected.find("rmdir d ok\n") != std::string::npos);
    RecordOptions o = test::capture_options({prog, recorded_dir}, base + ".ucir");
    o.env = {"LC_ALL=C"};
    test::check_records_like_native(o, expected);
    CHECK(fs::is_empty(recorded_dir));  // the program removed what it made
    fs::remove_all(native_dir);
    fs::remove_all(recorded_dir);
    fs::remove(base + ".ucir");
    ++ran;
  }
  CHECK(ran > 0);
}
