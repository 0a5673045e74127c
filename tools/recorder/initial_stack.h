// The stack Linux hands a new process: argc, argv, envp and the auxiliary
// vector, with the strings and AT_RANDOM bytes above them. Built as bytes
// for the loader to copy; knows nothing of Unicorn.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace ttd::rec {

struct AuxInfo {
  uint64_t phdr = 0, phent = 0, phnum = 0, entry = 0;
  uint64_t base = 0;         // AT_BASE: where the program interpreter is loaded (0: none)
  uint64_t pagesz = 4096;
  uint64_t hwcap = 0, hwcap2 = 0;
  uint64_t clktck = 100;
  uint64_t uid = 0, euid = 0, gid = 0, egid = 0;
  std::string platform;      // AT_PLATFORM string ("x86_64", "aarch64")
  std::string execfn;        // AT_EXECFN string (the program path)
  uint8_t random[16] = {};   // AT_RANDOM bytes (glibc seeds its stack guard from them)
};

struct InitialStack {
  uint64_t sp = 0;             // the initial stack pointer (points at argc)
  std::vector<uint8_t> bytes;  // memory contents of [sp, top)
  // Where the argument and environment strings are (Linux's mm->arg_start
  // .. env_end, which /proc/self/cmdline and environ read) and the
  // auxiliary vector's words (/proc/self/auxv).
  uint64_t arg_start = 0, arg_end = 0, env_start = 0, env_end = 0;
  std::vector<uint8_t> auxv;
};

// Lays out the stack below `top` (exclusive) for a 64-bit little-endian
// guest, with sp 16-byte aligned as both the x86-64 and AArch64 ABIs want.
InitialStack build_initial_stack(uint64_t top, const std::vector<std::string>& argv,
                                 const std::vector<std::string>& env, const AuxInfo& aux);

}  // namespace ttd::rec
