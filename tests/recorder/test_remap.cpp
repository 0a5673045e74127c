// mremap: programs/remap.c (grow in place, grow that moves, shrink, move to
// a fixed address, the errors, realloc of large blocks) and Debian's
// sqlite3, whose allocator grows its blocks with it, print what they print
// natively (before, mremap was -ENOSYS).
#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>

#include "tests/recorder/recording_support.h"
#include "tools/recorder/recorder.h"

using namespace ttd;
using namespace ttd::rec;
namespace fs = std::filesystem;

namespace {

void check_clean(const RecordSummary& s) {
  test::check_clean(s);
  CHECK(s.exit_code == 0);
}

}  // namespace

TEST_CASE("mremap: grow, move, shrink, fixed, errors and large reallocs, as natively") {
  const std::string native_prog = test::program_path("x86_64-dyn", "remap");
  if (native_prog.empty()) return;
  const std::string native = test::native_output(native_prog);
  // Every check held natively (1 = as expected).
  REQUIRE(native ==
          "grow in place: 1, same sum 1\n"
          "grown part zero: 1, writable 1\n"
          "blocker placed: 10\n"
          "grow without MAYMOVE: 1 errno ENOMEM 1\n"
          "grow with MAYMOVE: moved 1, same sum 1\n"
          "old range gone: 1, moved byte 9\n"
          "shrink: same address 1, same sum 1\n"
          "shrunk part gone: 10\n"
          "fixed: at the address 1, same sum 1\n"
          "unaligned: EINVAL 10\n"
          "new size 0: EINVAL 10\n"
          "unknown flag: EINVAL 10\n"
          "realloc 256 KiB -> 1 MiB: kept 1, tail 10\n"
          "realloc down: kept 10\n");
  for (const char* variant : {"x86_64", "x86_64-glibc", "x86_64-dyn", "aarch64", "aarch64-dyn"}) {
    const std::string prog = test::program_path(variant, "remap");
    if (prog.empty()) continue;
    INFO(std::string(variant));
    RecordOptions o = test::capture_options({prog}, test::temp_trace(std::string("remap-") + variant));
    // The trace's mappings and bytes agree with the emulator at the end
    // (verify reads every register every step: one variant is enough).
    o.verify = std::string(variant) == "x86_64-dyn";
    auto sum = record(o);
    REQUIRE_MESSAGE(sum.ok(), test::error_text(sum));
    check_clean(*sum);
    CHECK(sum->verify_memory_mismatches == 0);
    CHECK(sum->captured_stdout == native);
    fs::remove(o.output);
  }
}

TEST_CASE("mremap: Debian's sqlite3 growing a large string prints what it prints natively") {
  // group_concat over 2000 rows grows a ~600 KB buffer with realloc, which
  // glibc does with mremap once the block is mmapped.
  const char* sqlite = "/usr/bin/sqlite3";
  if (!fs::exists(sqlite)) return;
  const std::string script =
      "create table t(a integer primary key, b text);\n"
      "with recursive c(x) as (select 1 union all select x + 1 from c where x < 2000)\n"
      "  insert into t select x, printf('row %d %s', x, hex(zeroblob(x % 300))) from c;\n"
      "select count(*), sum(a), length(max(b)), length(group_concat(b)) from t;\n";
  const std::string dir = test::temp_trace("sqlite-dir");
  fs::create_directories(dir);
  const std::string script_file = dir + "/script.sql";
  {
    FILE* f = std::fopen(script_file.c_str(), "w");
    REQUIRE(f);
    std::fputs(script.c_str(), f);
    std::fclose(f);
  }
  const std::string native =
      test::run_shell(std::string("env -i LC_ALL=C ") + sqlite + " :memory: < '" + script_file + "'").out;
  REQUIRE(native == "2000|2001000|206|597292\n");
  RecordOptions o = test::capture_options({sqlite, ":memory:"}, test::temp_trace("sqlite"));
  o.env = {"LC_ALL=C"};
  o.stdin_data = script;
  auto sum = record(o);
  REQUIRE_MESSAGE(sum.ok(), test::error_text(sum));
  check_clean(*sum);
  CHECK(sum->captured_stdout == native);
  auto t = test::read_trace(o.output);
  REQUIRE_MESSAGE(t.ok(), test::error_text(t));
  size_t remaps = 0;
  for (const auto& s : t->syscalls) remaps += s.number == 25 && int64_t(s.ret) > 0;
  CHECK(remaps > 0);
  fs::remove(o.output);
  fs::remove_all(dir);
}
