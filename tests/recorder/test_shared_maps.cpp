// Writable shared mappings of files and MADV_DONTNEED: programs/shared_maps.c
// prints what it prints natively on every build, and the file holds the
// stores when the recording ends (before, such a mapping was -ENOSYS, so
// SQLite's WAL mode failed with "disk I/O error", and MADV_DONTNEED left
// the bytes where Linux gives zeros). And Debian's sqlite3 in WAL mode.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/recorder/recording_support.h"

namespace test_shared_maps {

using namespace ttd;
using namespace ttd::rec;
namespace fs = std::filesystem;

namespace {

const char* const kNative =
    "msync: 0\npread after msync: 1\npartial munmap: 0\nmunmap the rest: 0\nfile size unchanged: 1\n"
    "stores in the file: 1 1 1 1\npwrite beside mappings kept: 1, the store kept 1\n"
    "shared writable of a read-only fd: EACCES 1\nMADV_DONTNEED: 0\n"
    "zeroed 1, the next page kept 1\nMADV_DONTNEED on a shared file mapping: 0, bytes kept 1\n";

std::string head_of(const std::string& path, size_t n) {
  std::ifstream f(path, std::ios::binary);
  std::string s(n, '\0');
  f.read(s.data(), std::streamsize(n));
  s.resize(size_t(f.gcount()));
  return s;
}

}  // namespace

TEST_CASE("shared file mappings and MADV_DONTNEED: as natively, the file written back") {
  const std::string native_prog = test::program_path("x86_64-dyn", "shared_maps");
  if (native_prog.empty()) return;
  const std::string dir = test::temp_trace("shared-maps-dir");
  fs::create_directories(dir);
  const test::NativeRun native = test::run_native({native_prog, dir});
  REQUIRE(native.status == 0);
  REQUIRE(native.out == kNative);
  REQUIRE(head_of(dir + "/shared.bin", 5) == "HEllo");  // the mapping left at exit reached the file
  int ran = 0;
  for (const char* variant : {"x86_64", "x86_64-glibc", "x86_64-dyn", "aarch64", "aarch64-dyn"}) {
    const std::string prog = test::program_path(variant, "shared_maps");
    if (prog.empty()) continue;
    INFO(std::string(variant));
    fs::remove(dir + "/shared.bin");
    const std::string out = test::temp_trace(std::string("shared-maps-") + variant + ".ucir");
    const RecordSummary sum = test::check_records_like_native(test::capture_options({prog, dir}, out), kNative);
    CHECK(head_of(dir + "/shared.bin", 5) == "HEllo");
    for (const RecordedTrace& t : sum.traces) fs::remove(t.path);
    ++ran;
  }
  CHECK(ran > 0);
  fs::remove_all(dir);
}

TEST_CASE("shared mappings: a forked child's stores to a file mapping are its own, and the fork is listed") {
  // The known limit, pinned: natively the child's store is seen.
  const std::string native_prog = test::program_path("x86_64-dyn", "shared_maps");
  if (native_prog.empty()) return;
  const std::string dir = test::temp_trace("shared-maps-fork-dir");
  fs::create_directories(dir);
  REQUIRE(test::run_native({native_prog, dir, "fork"}).out == "child's store seen: 1\n");
  RecordOptions o = test::capture_options({native_prog, dir, "fork"}, test::temp_trace("shared-maps-fork.ucir"));
  auto sum = record(o);
  REQUIRE_MESSAGE(sum.ok(), test::error_text(sum));
  CHECK(sum->captured_stdout == "child's store seen: 0\n");
  bool listed = false;
  for (const auto& u : sum->unsupported) listed |= u.name.find("shared and writable") != std::string::npos;
  CHECK(listed);
  for (const RecordedTrace& t : sum->traces) fs::remove(t.path);
  fs::remove_all(dir);
}

TEST_CASE("shared mappings: a forked child's stores to MAP_SHARED|MAP_ANONYMOUS memory are seen, as natively") {
  // Until 2026-11-29 each process kept its own copy (and the fork was listed).
  const std::string dir = test::temp_trace("shared-maps-fork-anon-dir");
  fs::create_directories(dir);
  int ran = 0;
  for (const char* variant : {"x86_64", "x86_64-dyn", "aarch64"}) {
    const std::string prog = test::program_path(variant, "shared_maps");
    if (prog.empty()) continue;
    INFO(std::string(variant));
    const std::string out = test::temp_trace(std::string("shared-maps-fork-anon-") + variant + ".ucir");
    const RecordSummary sum =
        test::check_records_like_native(test::capture_options({prog, dir, "fork-anon"}, out), "child's store seen: 1\n");
    for (const RecordedTrace& t : sum.traces) fs::remove(t.path);
    ++ran;
  }
  CHECK(ran > 0);
  fs::remove_all(dir);
}

TEST_CASE("shared file mappings: Debian's sqlite3 in WAL mode, as natively") {
  const char* sqlite = "/usr/bin/sqlite3";
  if (!fs::exists(sqlite)) return;
  const std::string dir = test::temp_trace("sqlite-wal-dir");
  fs::create_directories(dir);
  const std::string script =
      "pragma journal_mode=wal;\ncreate table t(a);\n"
      "with recursive c(x) as (select 1 union all select x + 1 from c where x < 500) insert into t select x from c;\n"
      "select count(*), sum(a) from t;\n";
  RecordOptions o = test::capture_options({sqlite, dir + "/w.db"}, test::temp_trace("sqlite-wal.ucir"));
  o.env = {"LC_ALL=C"};
  o.stdin_data = script;
  const RecordSummary sum = test::check_records_like_native(o, "wal\n500|125250\n");
  for (const RecordedTrace& t : sum.traces) fs::remove(t.path);
  // The database the recorded run left reads back natively.
  CHECK(test::run_shell(std::string(sqlite) + " '" + dir + "/w.db' 'select sum(a) from t'").out == "125250\n");
  fs::remove_all(dir);
}

TEST_CASE("file mappings: pwrite, write, an append and ftruncate of a mapped file show in its mappings, as natively") {
  // Until 2026-11-29 every mapping kept the bytes the file had when it was
  // mapped: all but the stored private page printed 0 (LMDB and SQLite's
  // mmap_size read back through a mapping what they write with pwrite).
  const char* const expected =
      "pwrite: shared 1 private 1 shared writable 1, a stored private page kept 1, next to it 1\n"
      "pwrite to the private mapping's other page: 1\n"
      "a store through the shared mapping, then pread: 1\n"
      "write at the position: 1 1, the store kept 1\n"
      "append through a write-only descriptor: 1 1\n"
      "copy_file_range into it: 1\n"
      "ftruncate: 1 1 1\n";
  const std::string native_prog = test::program_path("x86_64-dyn", "mapped_writes");
  if (native_prog.empty()) return;
  const std::string dir = test::temp_trace("mapped-writes-dir");
  fs::create_directories(dir);
  const test::NativeRun native = test::run_native({native_prog, dir});
  REQUIRE(native.status == 0);
  REQUIRE(native.out == expected);
  int ran = 0;
  for (const char* variant : {"x86_64", "x86_64-glibc", "x86_64-dyn", "aarch64", "aarch64-dyn"}) {
    const std::string prog = test::program_path(variant, "mapped_writes");
    if (prog.empty()) continue;
    INFO(std::string(variant));
    const std::string out = test::temp_trace(std::string("mapped-writes-") + variant + ".ucir");
    const RecordSummary sum = test::check_records_like_native(test::capture_options({prog, dir}, out), expected);
    for (const RecordedTrace& t : sum.traces) fs::remove(t.path);
    ++ran;
  }
  CHECK(ran > 0);
  fs::remove_all(dir);
}

}  // namespace test_shared_maps
