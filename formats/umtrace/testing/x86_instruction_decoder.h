// Decodes an x86 instruction with Capstone into what a UMTracer-style
// decoded instruction needs: explicit operands (registers, immediates,
// memory phrases), the registers it reads and writes (explicit and
// implicit, as catalogue ids), prefixes and the insRec type. Pin gets this
// from XED; Capstone's view is close but not identical (it omits some
// implicit effects, e.g. syscall's rcx/r11), which the local context
// builder completes from the observed register changes.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "state/error.h"

namespace ttd::fmt::umtrace {

struct X86Operand {
  enum class Kind : uint8_t { Register, Immediate, Memory };
  Kind kind = Kind::Register;
  uint16_t size = 0;
  bool read = false, write = false;
  uint16_t reg = 0;  // Register: catalogue id
  uint64_t imm = 0;  // Immediate (branch targets already absolute)
  // Memory: seg:[base + index * scale + disp]; catalogue ids, 0 = none.
  uint16_t seg = 0, base = 0, index = 0;
  uint8_t scale = 1;
  int64_t disp = 0;
  bool rip_relative = false;
};

struct X86Instruction {
  uint64_t address = 0;
  std::vector<uint8_t> code;
  std::string text;  // "mov rax, qword ptr [rbx]"
  std::string mnemonic;
  unsigned id = 0;       // Capstone instruction id (our decodedIns.Mnemonic)
  unsigned category = 0; // Capstone's first group (our decodedIns.Category)
  uint8_t ins_type = 0;  // insRec.Type
  uint8_t addr_size = 8;
  bool rep = false, repne = false, lock = false;
  bool lea = false, conditional_jump = false, conditional_move = false, string_op = false;
  bool branch = false;  // may write the instruction pointer (jumps, calls, returns, interrupts)
  std::vector<X86Operand> operands;
  std::vector<uint16_t> reads, writes;  // catalogue ids; the instruction pointer is left out
};

class X86InstructionDecoder {
 public:
  static Result<std::unique_ptr<X86InstructionDecoder>> create(bool mode64);
  ~X86InstructionDecoder();
  bool mode64() const { return mode64_; }
  // The decoded instruction at address (cached by address and bytes).
  Result<const X86Instruction*> decode(uint64_t address, std::span<const uint8_t> code);

 private:
  X86InstructionDecoder() = default;
  size_t handle_ = 0;
  bool mode64_ = true;
  std::map<std::pair<uint64_t, std::vector<uint8_t>>, X86Instruction> cache_;
};

}  // namespace ttd::fmt::umtrace
