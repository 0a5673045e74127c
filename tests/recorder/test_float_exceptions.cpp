// A program's floating-point exception flags (fenv.h's fetestexcept) and
// rounding modes under the recorder are what the CPU gives natively
// (sse_host_eval.h). Until 2026-11-29 Unicorn 2.0.1 set none of MXCSR's
// sticky flags on x86-64: every line of programs/fenv_flags.c said "none",
// and numpy printed none of its "divide by zero encountered" warnings.
#include <doctest/doctest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

#include "tests/recorder/recording_support.h"
#include "tools/recorder/sse_host_eval.h"
#include "tools/recorder/x87_host_ops.h"

namespace test_float_exceptions {

namespace {

// `program` (x86_64-dyn build unless `variant`) in `mode` prints "before"
// and dies of SIGFPE natively; recorded, the run ends the same way, with
// `fault` (if given) in the recorder's fault text.
void check_dies_of_sigfpe(const char* program, const char* mode, const char* fault, const char* variant = "x86_64-dyn") {
  CAPTURE(variant);
  CAPTURE(mode);
  const std::string prog = ttd::rec::test::program_path(variant, program);
  if (prog.empty()) return;
  const auto native = ttd::rec::test::run_shell("env -i '" + prog + "' " + mode + "; echo \"status $?\"");
  REQUIRE(native.out == "before\nstatus 136\n");
  ttd::rec::RecordOptions o =
      ttd::rec::test::capture_options({prog, mode}, ttd::rec::test::temp_trace(std::string(program) + "-" + mode));
  auto sum = ttd::rec::record(o);
  REQUIRE_MESSAGE(sum.ok(), ttd::rec::test::error_text(sum));
  std::filesystem::remove(o.output);
  CHECK(sum->captured_stdout == "before\n");
  CHECK(sum->signal == 8);
  CHECK(sum->exit_code == 136);
  if (!fault) return;
  REQUIRE(sum->fault.has_value());
  CHECK(sum->fault->find(fault) != std::string::npos);
}

// `program` in `mode` forks a child that is not recorded and writes to the
// real stdout: recorded (the helper puts both processes' output in one
// file), it prints what it prints natively.

}  // namespace

TEST_CASE("fenv: fetestexcept after each operation and results under each rounding mode are as native") {
  const std::string prog = ttd::rec::test::program_path("x86_64-dyn", "fenv_flags");
  if (prog.empty()) return;
  const std::string native = ttd::rec::test::run_native({prog, "all"}).out;
  // The host must raise them for the comparison to mean anything.
  REQUIRE(native.find("1 / 0                  divbyzero\n") != std::string::npos);
  REQUIRE(native.find("1e-308 * 1e-308        inexact underflow\n") != std::string::npos);
  ttd::rec::test::check_mode_like_native("fenv_flags", "all", {"x86_64", "x86_64-glibc", "x86_64-dyn", "aarch64"});
}

TEST_CASE("long double math (x87) gives the CPU's digits and flags") {
  // Unicorn 2.0.1 computes f2xm1, fyl2x, fpatan, fprem ... in double
  // precision: expl(1.0L) lost its last digits and remainderl(1e30L, 3)
  // gave 1, not 0 (x87_host_eval.h).
  const std::string prog = ttd::rec::test::program_path("x86_64-dyn", "fenv_flags");
  if (prog.empty()) return;
  const std::string native = ttd::rec::test::run_native({prog, "long-double"}).out;
  REQUIRE(native.find("remainderl 0\n") != std::string::npos);
  REQUIRE(native.find("1.0L / 3.0L            inexact\n") != std::string::npos);
  ttd::rec::test::check_mode_like_native("fenv_flags", "long-double", {"x86_64", "x86_64-glibc", "x86_64-dyn"});
}

TEST_CASE("a fork child that is not recorded computes floating point as natively too") {
  // It runs without the recording hooks; before 2026-11-29 its SSE flags
  // were never set and its long double transcendentals were Unicorn's
  // (RecordingSession::on_child_code).
  const std::string prog = ttd::rec::test::program_path("x86_64-dyn", "fenv_flags");
  if (prog.empty()) return;
  const std::string native = ttd::rec::test::run_native({prog, "child"}).out;
  REQUIRE(native.find("remainderl 0\n") != std::string::npos);
  REQUIRE(native.find("child status 0\n") != std::string::npos);
  for (const char* variant : {"x86_64", "x86_64-glibc", "x86_64-dyn"})
    ttd::rec::test::check_child_like_native("fenv_flags", "child", variant);
}

TEST_CASE("an SSE exception unmasked in MXCSR traps: SIGFPE at the instruction, its result not written") {
  // Caught: si_code by exception, si_addr and the saved rip at the divsd,
  // MXCSR's flag set in the saved state, xmm0 as before the division.
  ttd::rec::test::check_mode_like_native("fenv_flags", "trap", {"x86_64", "x86_64-glibc", "x86_64-dyn"});
  // Not caught: the process dies of SIGFPE, as natively.
  for (const char* variant : {"x86_64", "x86_64-dyn"})
    check_dies_of_sigfpe("fenv_flags", "trap-fatal", "SIMD floating-point exception (invalid operation)", variant);
}

TEST_CASE("an x87 exception unmasked in the control word traps at the next waiting instruction, as on the CPU") {
  // #MF: si_code, si_addr, trapno 16, the saved x87 state (an untouched
  // destination, a bias-adjusted overflow and underflow, a suppressed
  // store), fldcw unmasking a flag already set, an MMX instruction and an
  // SSE one with an mm register trapping (not its memory form, after which
  // the x87 stack is as it was), fnstsw and fnclex not waiting, a handler
  // that masks and returns. Before 2026-11-29 none was
  // delivered: "divide" printed "no trap" and an inf.
  const std::string prog = ttd::rec::test::program_path("x86_64-dyn", "x87_traps");
  if (prog.empty()) return;
  const std::string native = ttd::rec::test::run_native({prog, "caught"}).out;
  REQUIRE(native.find("SIGFPE si_code 3 at db 3d trapno 16 rip at it 1") != std::string::npos);
  REQUIRE(native.find("no trap") != std::string::npos);  // the no-wait case
  for (const char* mode : {"caught", "resume"})
    ttd::rec::test::check_mode_like_native("x87_traps", mode, {"x86_64", "x86_64-glibc", "x86_64-dyn"});
  // Not caught: SIGFPE ends the process.
  check_dies_of_sigfpe("x87_traps", "fatal", "x87 floating-point exception (divide by zero)");
  // In an unrecorded fork child (its own code hook), caught and fatal.
  REQUIRE(ttd::rec::test::run_native({prog, "child"}).out.find("child fatal: signal 8\n") != std::string::npos);
  ttd::rec::test::check_child_like_native("x87_traps", "child", "x86_64-dyn");
}

TEST_CASE("an integer division by zero without a handler ends the run with SIGFPE, as natively") {
  // Before 2026-11-29 every unhandled CPU exception ended with SIGTRAP.
  check_dies_of_sigfpe("fenv_flags", "intdiv", nullptr);
}

TEST_CASE("CPUID: the SSE levels Unicorn runs are reported, SSE3 among them, as on the host") {
  // Unicorn 2.0.1 runs SSE3 but left it out of CPUID leaf 1, and Debian's
  // numpy (built for an SSE3 baseline) refused to import (cpuid_fixup.h).
  const std::string prog = ttd::rec::test::program_path("x86_64-dyn", "fenv_flags");
  if (prog.empty()) return;
  const std::string native = ttd::rec::test::run_native({prog, "cpu"}).out;
  if (native != "mmx 1 sse 1 sse2 1 sse3 1 ssse3 1 sse4.1 1 sse4.2 1\n") return;  // an older host
  ttd::rec::test::check_mode_like_native("fenv_flags", "cpu", {"x86_64", "x86_64-glibc", "x86_64-dyn"});
}

TEST_CASE("numpy imports and warns of divide by zero, invalid, overflow and underflow as natively") {
  // 290 M steps: Debian's numpy, dynamically loaded, its SIMD dispatch and
  // its floating-point status checks after each ufunc.
  if (!std::filesystem::exists("/usr/lib/python3/dist-packages/numpy/__init__.py")) return;
  ttd::rec::test::TempDir dir("numpy");
  const std::string script = dir.file("warn.py");
  std::ofstream(script) << R"(import warnings
import numpy as np
a = np.array([1.0, 0.0, -1.0])
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    r = (a / 0.0, np.sqrt(a), np.array([1e308]) * 10, np.array([1e-308]) * 1e-10)
print(*r)
for w in caught:
    print(w.category.__name__, w.message)
np.seterr(all="raise")
for f in (lambda: np.array([1.0]) / np.array([0.0]), lambda: np.array([1e-308]) * 1e-10):
    try:
        f()
    except FloatingPointError as e:
        print("FloatingPointError", e)
)";
  const std::vector<std::string> argv = {"/usr/bin/python3", "-E", script};
  const ttd::rec::test::NativeRun native = ttd::rec::test::run_native(argv);
  REQUIRE(native.status == 0);
  REQUIRE(native.out.find("RuntimeWarning divide by zero encountered in divide\n") != std::string::npos);
  ttd::rec::RecordOptions o = ttd::rec::test::capture_options(argv, ttd::rec::test::temp_trace("numpy"));
  o.env = {"LC_ALL=C"};
  auto sum = ttd::rec::record(o);  // without verification: 290 M steps
  REQUIRE_MESSAGE(sum.ok(), ttd::rec::test::error_text(sum));
  ttd::rec::test::check_clean(*sum);
  CHECK(sum->exit_code == 0);
  CHECK(sum->captured_stdout == native.out);
  std::filesystem::remove(o.output);
}

}  // namespace test_float_exceptions

namespace test_float_exceptions {

using namespace ttd::rec;

namespace {

HostFpOp classify(std::initializer_list<uint8_t> bytes) {
  csh cs;
  REQUIRE(cs_open(CS_ARCH_X86, CS_MODE_64, &cs) == CS_ERR_OK);
  cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
  std::vector<uint8_t> code(bytes);
  cs_insn* insn = nullptr;
  REQUIRE(cs_disasm(cs, code.data(), code.size(), 0x1000, 1, &insn) == 1);
  HostFpOp op = classify_sse(*insn);
  cs_free(insn, 1);
  cs_close(&cs);
  return op;
}

}  // namespace

TEST_CASE("classify_sse: operands, integer widths and immediates, string and integer instructions left alone") {
  HostFpOp op = classify({0xf2, 0x0f, 0x5e, 0xc1});  // divsd xmm0, xmm1
  CHECK(op.op == HostFpOpcode::DivSd);
  CHECK(op.dst == 0);
  CHECK(op.src == 1);
  op = classify({0xf2, 0x48, 0x0f, 0x2a, 0xc1});  // cvtsi2sd xmm0, rcx
  CHECK(op.op == HostFpOpcode::CvtSi2Sd64);
  CHECK(op.src == HostFpOp::kGpr + 1);
  op = classify({0xf2, 0x0f, 0x2a, 0x05, 0, 0, 0, 0});  // cvtsi2sd xmm0, dword ptr [rip]
  CHECK(op.op == HostFpOpcode::CvtSi2Sd32);
  CHECK(op.src == HostFpOp::kMemory);
  op = classify({0xf2, 0x4c, 0x0f, 0x2c, 0xc1});  // cvttsd2si r8, xmm1
  CHECK(op.op == HostFpOpcode::CvttSd2Si64);
  CHECK(op.dst == HostFpOp::kNone);
  op = classify({0xf2, 0x0f, 0xc2, 0xc1, 0x01});  // cmpltsd xmm0, xmm1
  CHECK(op.op == HostFpOpcode::CmpSd);
  CHECK(op.imm == 1);
  op = classify({0x66, 0x0f, 0x3a, 0x0b, 0xc1, 0x0c});  // roundsd xmm0, xmm1, 12
  CHECK(op.op == HostFpOpcode::RoundSd);
  CHECK(op.imm == 12);
  CHECK(classify({0xa7}).op == HostFpOpcode::None);              // cmpsd (string compare)
  CHECK(classify({0x66, 0x0f, 0xfe, 0xc1}).op == HostFpOpcode::None);  // paddd
  CHECK(classify({0x0f, 0x28, 0xc1}).op == HostFpOpcode::None);  // movaps
}

TEST_CASE("run_on_host: flags raised under the guest's control bits, the host's MXCSR left as it was") {
  uint32_t before = 0, after = 0, raised = 0;
  asm volatile("stmxcsr %0" : "=m"(before));
  Xmm d, s;
  const double one = 1.0, three = 3.0, zero = 0.0;
  std::memcpy(d.b, &one, 8);
  std::memcpy(s.b, &zero, 8);
  REQUIRE(run_on_host(HostFpOpcode::DivSd, d, s, 0, 0x1f80, raised));
  CHECK(raised == 0x04);  // divide by zero
  std::memcpy(d.b, &one, 8);
  std::memcpy(s.b, &three, 8);
  REQUIRE(run_on_host(HostFpOpcode::DivSd, d, s, 0, 0x5f80, raised));  // round upward
  CHECK(raised == 0x20);  // inexact
  double r;
  std::memcpy(&r, d.b, 8);
  CHECK(r > 1.0 / 3.0);
  // Unmasked exceptions in the guest's MXCSR do not trap on the host.
  std::memcpy(d.b, &one, 8);
  std::memcpy(s.b, &zero, 8);
  REQUIRE(run_on_host(HostFpOpcode::DivSd, d, s, 0, 0x0000, raised));
  CHECK(raised == 0x04);
  asm volatile("stmxcsr %0" : "=m"(after));
  CHECK(after == before);
}


TEST_CASE("run_x87_on_host: fsqrt and fstpl on a guest image, the host's x87 is left empty, its control words kept") {
  FxsaveImage image;
  const uint16_t fcw = 0x37f, fsw = 0x3800;  // TOP 7: ST0 is physical register 7
  const uint32_t mxcsr = 0x1f80;
  std::memcpy(image.b + 0, &fcw, 2);
  std::memcpy(image.b + 2, &fsw, 2);
  image.b[4] = 0x80;  // physical register 7 in use
  std::memcpy(image.b + 24, &mxcsr, 4);
  const uint64_t two_mantissa = 0x8000000000000000ull;
  const uint16_t two_exponent = 0x4000;
  std::memcpy(image.b + 32, &two_mantissa, 8);
  std::memcpy(image.b + 40, &two_exponent, 2);
  uint32_t host_mxcsr_before = 0, host_mxcsr_after = 0;
  asm volatile("stmxcsr %0" : "=m"(host_mxcsr_before));

  REQUIRE(run_x87_on_host(0xd9, 0xfa, image));  // fsqrt
  uint64_t mantissa;
  uint16_t exponent, status;
  std::memcpy(&mantissa, image.b + 32, 8);
  std::memcpy(&exponent, image.b + 40, 2);
  std::memcpy(&status, image.b + 2, 2);
  CHECK(mantissa == 0xb504f333f9de6484ull);  // sqrt(2) to 64 bits
  CHECK(exponent == 0x3fff);
  CHECK((status & 0x3f) == 0x20);  // inexact

  // fstpl to the operand: the double nearest sqrt(2), popped.
  alignas(16) uint8_t operand[16] = {};
  REQUIRE(x87_memory_form(0xdd, 3).stores);
  REQUIRE(run_x87_memory_on_host(0xdd, 3, image, operand));
  double stored;
  std::memcpy(&stored, operand, 8);
  CHECK(stored == 1.4142135623730951);
  std::memcpy(&status, image.b + 2, 2);
  CHECK(((status >> 11) & 7) == 0);  // TOP wrapped from 7 to 0
  CHECK(image.b[4] == 0);            // every register empty

  uint16_t host_fcw = 0;
  uint8_t env[28];
  asm volatile("fnstcw %0\n\tfnstenv %1" : "=m"(host_fcw), "=m"(env));
  asm volatile("stmxcsr %0" : "=m"(host_mxcsr_after));
  CHECK(host_fcw == 0x37f);
  uint16_t host_tags;
  std::memcpy(&host_tags, env + 8, 2);
  CHECK(host_tags == 0xffff);
  CHECK(host_mxcsr_after == host_mxcsr_before);
  CHECK_FALSE(x87_runs_on_host(0xda, 0xc0));  // fcmovb reads EFLAGS: left to Unicorn
  CHECK(x87_memory_form(0xd9, 5).bytes == 0);  // fldcw
}

}  // namespace test_float_exceptions
