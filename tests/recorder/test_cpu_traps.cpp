// Instructions that stop Unicorn by themselves (hlt, wfi, wfe) and CPU
// exceptions without a handler end or go on as on Linux
// (RecordingSession::halted, end_with_trap; programs/cpu_traps.c). Before
// 2026-11-29 a run ended silently with status 0 at hlt, wfi or wfe, and
// every unhandled trap ended with SIGTRAP. Also the instructions Unicorn
// calls invalid that the recorder runs itself (programs/missing_insns.c).
#include <doctest/doctest.h>

#include <filesystem>

#include "tests/recorder/recording_support.h"
#include "tools/recorder/sse_alignment.h"

namespace test_cpu_traps {

using namespace ttd::rec;

namespace {

// Stdout and "status N" as the shell reports them.
std::string native(const std::string& prog, const char* mode) {
  return test::run_shell("env -i '" + prog + "' " + mode + "; echo \"status $?\"").out;
}

// The summary of a recording expected to end with a fatal signal.
RecordSummary recorded_fatal(const std::string& prog, const char* mode) {
  RecordOptions o = test::capture_options({prog, mode}, test::temp_trace("cpu-traps-fatal"));
  auto sum = record(o);
  REQUIRE_MESSAGE(sum.ok(), test::error_text(sum));
  std::filesystem::remove(o.output);
  return *sum;
}

std::string recorded(const std::string& prog, const char* mode) {
  RecordOptions o = test::capture_options({prog, mode}, test::temp_trace("cpu-traps"));
  auto sum = record(o);
  REQUIRE_MESSAGE(sum.ok(), test::error_text(sum));
  std::filesystem::remove(o.output);
  return sum->captured_stdout + "status " + std::to_string(sum->exit_code) + "\n";
}

}  // namespace

TEST_CASE("hlt, int $n and icebp end or trap as on Linux: SIGSEGV, SIGSEGV to a handler, SIGTRAP") {
  const std::string dyn = test::program_path("x86_64-dyn", "cpu_traps");
  if (dyn.empty()) return;
  CHECK(native(dyn, "hlt") == "before\nstatus 139\n");
  CHECK(native(dyn, "hlt-handled") == "before\nSIGSEGV si_code 128 trapno 13\nafter\nstatus 0\n");
  CHECK(native(dyn, "icebp") == "before\nstatus 133\n");
  for (const char* variant : {"x86_64", "x86_64-dyn"}) {
    const std::string prog = test::program_path(variant, "cpu_traps");
    if (prog.empty()) continue;
    for (const char* mode : {"hlt", "hlt-handled", "int", "icebp", "wait"}) {
      CAPTURE(variant);
      CAPTURE(mode);
      CHECK(recorded(prog, mode) == native(prog, mode));
    }
  }
}

TEST_CASE("int $0x80 in a 64-bit program is named as not emulated, not a bare CPU exception") {
  // Natively (a kernel with IA32 emulation) the 32-bit exit(42) runs; the
  // recorder ends the run with SIGSEGV and says why (a known limit,
  // docs/recording.md).
  const std::string prog = test::program_path("x86_64-dyn", "cpu_traps");
  if (prog.empty()) return;
  RecordOptions o = test::capture_options({prog, "int80"}, test::temp_trace("int80"));
  auto sum = record(o);
  REQUIRE_MESSAGE(sum.ok(), test::error_text(sum));
  std::filesystem::remove(o.output);
  CHECK(sum->captured_stdout == "before\n");
  CHECK(sum->signal == 11);
  REQUIRE(sum->fault.has_value());
  CHECK(sum->fault->find("int $0x80 at pc 0x") == 0);
  CHECK(sum->fault->find("(a 32-bit system call, eax 1): not emulated in a 64-bit program") != std::string::npos);
}

TEST_CASE("POPCNT and MOVBE, which Unicorn calls invalid, run as on the CPU: results, flags, faults, in a child") {
  // Before 2026-11-29 the recording ended at the first popcnt with SIGILL
  // (tools/recorder/missing_instructions.h). Every width, register and
  // memory operands, the flags after them, a loop of them; an unmapped or
  // read-only operand raises SIGSEGV with the CPU's si_code and si_addr;
  // an unrecorded fork child runs them too.
  const std::string dyn = test::program_path("x86_64-dyn", "missing_insns");
  if (dyn.empty()) return;
  const std::string native_run = test::run_native({dyn, "run"}).out;
  REQUIRE(native_run.find("popcnt64 zero 0 flags 0x40\n") != std::string::npos);
  REQUIRE(native_run.find("movbe16 store 0xffffffffffff2211\n") != std::string::npos);
  for (const char* mode : {"run", "fault"})
    test::check_mode_like_native("missing_insns", mode, {"x86_64", "x86_64-glibc", "x86_64-dyn"});
  test::check_child_like_native("missing_insns", "child", "x86_64-dyn");
}

TEST_CASE("PDEP and PEXT, which Unicorn computes wrong, give the CPU's results") {
  // Before 2026-11-29 a recorded pdep of 0x123456789abcdef1 under mask
  // 0x0f0f00ff00f0f00f gave 0x1000007800b80071, not 0xa0b00cd00e0f001;
  // CPUID reports BMI2, so programs that ask first use them too.
  const std::string dyn = test::program_path("x86_64-dyn", "missing_insns");
  if (dyn.empty()) return;
  REQUIRE(test::run_native({dyn, "bmi2"}).out.find("pdep64 reg 0xa0b00cd00e0f001\n") != std::string::npos);
  test::check_mode_like_native("missing_insns", "bmi2", {"x86_64", "x86_64-glibc", "x86_64-dyn"});
}

TEST_CASE("PCLMULQDQ, RDRAND and RDSEED, which Unicorn calls invalid, run as on the CPU") {
  // Before 2026-11-29 a program built with -mpclmul, -mrdrnd or -mrdseed
  // ended with SIGILL at the first one.
  const std::string dyn = test::program_path("x86_64-dyn", "missing_insns");
  if (dyn.empty()) return;
  for (const char* mode : {"clmul", "rdrand"})
    test::check_mode_like_native("missing_insns", mode, {"x86_64", "x86_64-glibc", "x86_64-dyn"});
  CHECK(recorded(dyn, "rdseed") ==
        "rdseed64 flags 0x1\nrdseed64 values vary 1\nrdseed32 upper 0\nrdseed16 upper 0x1234567890ab\nstatus 0\n");
}

TEST_CASE("SSE to SSE4.2, AES-NI, ADX and LZCNT results are the CPU's") {
  // About 80 instructions' results printed (programs/simd_results.c): a
  // guard for answers the emulator or the host evaluation of floating
  // point could get wrong without a word, as Unicorn does for PDEP and AVX.
  test::check_mode_like_native("simd_results", "all", {"x86_64", "x86_64-glibc", "x86_64-dyn"});
}

TEST_CASE("an AVX instruction raises SIGILL, as on the CPU the recording's CPUID describes, not a wrong sum") {
  // Unicorn 2.0.1 runs `vpaddd %xmm2, %xmm1, %xmm0` as if xmm1 were xmm0
  // (before 2026-11-29 the recording printed "vpaddd 10 20 30 40"); CPUID
  // reports no AVX, so a CPU that answers so raises #UD there.
  for (const char* variant : {"x86_64", "x86_64-dyn"}) {
    const std::string prog = test::program_path(variant, "missing_insns");
    if (prog.empty()) continue;
    CAPTURE(variant);
    CHECK(recorded(prog, "avx") == "signal 4 si_code 2 at c5 f1 fe rip at it 1 trapno 6\nafter avx\nstatus 0\n");
    const RecordSummary sum = recorded_fatal(prog, "avx-fatal");
    CHECK(sum.signal == 4);
    CHECK(sum.exit_code == 132);
    REQUIRE(sum.fault.has_value());
    CHECK(sum.fault->find("AVX-family instruction at pc 0x") == 0);
    CHECK(sum.captured_stdout.empty());
  }
}

TEST_CASE("a misaligned 16-byte SSE operand raises SIGSEGV as on the CPU, and only where the CPU raises it") {
  // Before 2026-11-29 Unicorn ran movaps, movdqa, paddd m128, movntdq,
  // cmpxchg16b, fxsave ... on any address, so a program that crashes
  // natively (#GP: SIGSEGV, si_code SI_KERNEL, si_addr 0, trapno 13) ran
  // on when recorded (programs/sse_alignment.c; tools/recorder/sse_alignment.h).
  const std::string dyn = test::program_path("x86_64-dyn", "sse_alignment");
  if (dyn.empty()) return;
  const std::string native_run = test::run_native({dyn, "caught"}).out;
  REQUIRE(native_run.find("movaps load at +8:\n  signal 11 si_code 128 si_addr (nil) trapno 13 err 0 rip at it 1\n") !=
          std::string::npos);
  REQUIRE(native_run.find("movdqu store at +8:\n  ran\n") != std::string::npos);
  test::check_mode_like_native("sse_alignment", "caught", {"x86_64", "x86_64-glibc", "x86_64-dyn"});
  test::check_child_like_native("sse_alignment", "child", "x86_64-dyn");
  // In braces: the shell's "Segmentation fault" goes to /dev/null too.
  CHECK(test::run_shell("{ env -i '" + dyn + "' fatal; } 2>/dev/null; echo \"status $?\"").out == "before\nstatus 139\n");
  const RecordSummary sum = recorded_fatal(dyn, "fatal");
  CHECK(sum.signal == 11);
  CHECK(sum.exit_code == 139);
  CHECK(sum.captured_stdout == "before\n");
  REQUIRE(sum.fault.has_value());
  CHECK(sum.fault->find("general protection fault at pc 0x") == 0);
}

TEST_CASE("which instructions want an aligned operand: Capstone's operand sizes, corrected") {
  csh cs = 0;
  REQUIRE(cs_open(CS_ARCH_X86, CS_MODE_64, &cs) == CS_ERR_OK);
  cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
  auto wants = [&](std::initializer_list<uint8_t> code) {
    const std::vector<uint8_t> bytes(code);
    cs_insn* insn = nullptr;
    REQUIRE(cs_disasm(cs, bytes.data(), bytes.size(), 0x1000, 1, &insn) == 1);
    const bool r = needs_aligned_operand(*insn);
    cs_free(insn, 1);
    return r;
  };
  CHECK(wants({0x0f, 0x28, 0x00}));              // movaps (%rax), %xmm0
  CHECK(wants({0x66, 0x0f, 0xfe, 0x00}));        // paddd (%rax), %xmm0
  CHECK(wants({0x48, 0x0f, 0xc7, 0x08}));        // cmpxchg16b (%rax)
  CHECK(wants({0x0f, 0xae, 0x00}));              // fxsave (%rax): Capstone says 8 bytes
  CHECK_FALSE(wants({0x0f, 0x10, 0x00}));        // movups (%rax), %xmm0
  CHECK_FALSE(wants({0xf3, 0x0f, 0x6f, 0x00}));  // movdqu (%rax), %xmm0
  CHECK_FALSE(wants({0x66, 0x0f, 0x2f, 0x00}));  // comisd (%rax), %xmm0: m64, Capstone says 16
  CHECK_FALSE(wants({0x0f, 0x2f, 0x00}));        // comiss (%rax), %xmm0: m32, Capstone says 16
  CHECK_FALSE(wants({0xf2, 0x0f, 0x10, 0x00}));  // movsd (%rax), %xmm0
  CHECK_FALSE(wants({0x0f, 0xfe, 0x00}));        // paddd (%rax), %mm0: MMX, m64
  CHECK_FALSE(wants({0x66, 0x0f, 0x3a, 0x63, 0x00, 0x00}));  // pcmpistri $0, (%rax), %xmm0
  CHECK_FALSE(wants({0xc5, 0xf8, 0x28, 0x00}));  // vmovaps (%rax), %xmm0: VEX
  CHECK_FALSE(wants({0x0f, 0x28, 0xc1}));        // movaps %xmm1, %xmm0: no memory
  cs_close(&cs);
}

TEST_CASE("AArch64's wfi and wfe run on in user mode") {
  const std::string prog = test::program_path("aarch64", "cpu_traps");
  if (prog.empty()) return;
  CHECK(recorded(prog, "wait") == "before\nafter\nstatus 0\n");
}

}  // namespace test_cpu_traps
