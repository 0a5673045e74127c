// Issue 16: dynamically linked x86-64 programs computed wrong answers
// under `ttd record`. glibc binds a function at its first call through
// _dl_runtime_resolve_fxsave, which keeps the caller's vector registers
// with fxsave / fxrstor; Unicorn 2.0.1 leaves xmm0-15 and MXCSR out of both
// unless CR4.OSFXSR is set, so log(10) got whatever _dl_fixup had left in
// xmm0 and Python's int("200") failed. Recorded, these programs must print
// what they print natively.
#include <doctest/doctest.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>

#include "tests/recorder/recording_support.h"
#include "tools/recorder/recorder.h"

using namespace ttd;
using namespace ttd::rec;
namespace fs = std::filesystem;

namespace {

using test::NativeRun;
using test::run_native;

// Records argv and checks it exits as natively, printing the same bytes;
// with verify, also that the trace holds what fxrstor put in the registers.
void check_as_native(const std::vector<std::string>& argv, const std::string& tag, bool verify) {
  NativeRun native = run_native(argv);
  REQUIRE(native.status == 0);
  REQUIRE_FALSE(native.out.empty());
  RecordOptions o = test::capture_options(argv, test::temp_trace(tag));
  o.env = {"LC_ALL=C"};
  o.verify = verify;
  auto sum = record(o);
  REQUIRE_MESSAGE(sum.ok(), test::error_text(sum));
  test::check_clean(*sum);
  CHECK(sum->exit_code == native.status);
  CHECK(sum->captured_stdout == native.out);
  CHECK(sum->captured_stderr == "");
  std::error_code ec;
  fs::remove(o.output, ec);
}

}  // namespace

TEST_CASE("libm called through lazily bound PLT slots returns what it returns natively") {
  // Static builds have no lazy binding but run the fxsave check the same.
  int ran = 0;
  for (const char* variant : {"x86_64-dyn", "x86_64-nopie", "x86_64-glibc", "x86_64"}) {
    std::string prog = test::program_path(variant, "lazy_math");
    if (prog.empty()) continue;
    INFO(std::string(variant));
    for (const char* arg : {"10", "0.75"}) {
      INFO(std::string(arg));
      check_as_native({prog, arg, "0.5"}, std::string("lazy-math-") + variant, /*verify=*/true);
    }
    ++ran;
  }
  CHECK(ran > 0);
}

TEST_CASE("python3 converts int(\"200\") as natively") {
  // Before the fix: "ValueError: Exceeds the limit (4300 digits) ...".
  if (!fs::exists("/usr/bin/python3")) return;
  check_as_native({"/usr/bin/python3", "-I", "-S", "-c", "print(int('200'), 2 ** 0.5, float('1e300') * 10)"},
                  "python-int", /*verify=*/false);
}
