// What differs between the guest architectures the recorder runs: memory
// layout defaults, auxv values, the syscall ABI and how the syscall
// instruction reaches us, struct layouts the kernel writes, and how
// Capstone's register names map onto the architecture's register table.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <capstone/capstone.h>
#include <unicorn/unicorn.h>

#include "state/arch.h"
#include "state/error.h"
#include "tools/recorder/syscall_table.h"

namespace ttd::rec {

// What fstat reports; encode_stat lays it out as the architecture's struct stat.
struct StatInfo {
  uint64_t dev = 0, ino = 0, mode = 0, nlink = 1, uid = 0, gid = 0, rdev = 0;
  int64_t size = 0, blksize = 4096, blocks = 0;
  int64_t time_sec = 0, time_nsec = 0;  // atime = mtime = ctime
};

struct SyscallAbi {
  int number = 0;   // Unicorn id of the register holding the syscall number
  int args[6] = {}; // ... of the argument registers
  int ret = 0;      // ... of the return value register
};

class GuestArch {
 public:
  virtual ~GuestArch() = default;
  virtual ArchId id() const = 0;

  // Process layout and auxv.
  virtual uint64_t stack_top() const { return 0x7ffffffff000ull; }
  virtual uint64_t mmap_top() const { return 0x7ffff7fff000ull; }
  virtual std::string_view platform() const = 0;  // AT_PLATFORM
  virtual uint64_t hwcap() const = 0;             // AT_HWCAP
  // Puts the fresh CPU into the state Linux starts a process in.
  virtual Status prepare_cpu(uc_engine* uc) const = 0;

  // Syscalls: x86-64 reaches us through the `syscall` instruction hook,
  // AArch64 through an interrupt (svc raises EXCP_SWI).
  virtual bool syscall_via_insn_hook() const = 0;
  virtual bool is_syscall_interrupt(uint32_t intno) const = 0;
  virtual const SyscallAbi& syscall_abi() const = 0;
  virtual const SyscallTable& syscalls() const = 0;
  // Registers the kernel itself overwrites on every syscall besides the
  // return value (x86-64: rcx = return address, r11 = rflags), as
  // {Unicorn id, value} given the address after the syscall instruction.
  virtual std::vector<std::pair<int, uint64_t>> syscall_clobbers(uc_engine* uc, uint64_t next_pc) const {
    return {};
  }
  virtual std::vector<uint8_t> encode_stat(const StatInfo& st) const = 0;

  // Register tracking. The name, in the arch table, of the register that
  // holds Capstone register `cs_name` ("eax" -> "rax", "w3" -> "x3"); empty
  // if the table has no such register.
  virtual std::string parent_register(std::string_view cs_name) const = 0;
  // Names of registers an instruction may change that Capstone does not
  // list (x87 stack rotation, FP status flags, system register moves).
  virtual void implicit_writes(const cs_insn& insn, const std::vector<std::string>& cs_written,
                               std::vector<std::string>& out) const = 0;
};

// The recorder's adapters: x86-64 and AArch64; an Error for others.
Result<const GuestArch*> guest_arch(ArchId id);
const GuestArch& guest_arch_x86_64();
const GuestArch& guest_arch_aarch64();

}  // namespace ttd::rec
