// Capstone behind the disassembly view: how the instruction at pc reads.
// Code bytes come from a caller-supplied reader (trace memory first, then
// the program file). What an instruction does to the call stack is the
// engine's question (engine/query/instruction_class.h via PcClassCache),
// so the stepper and `ttd calls` agree.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "state/arch.h"

namespace ttd::dap {

struct DecodedInstruction {
  uint64_t addr = 0;
  uint32_t size = 0;
  std::string text;   // "mov rax, qword ptr [rbp - 8]"
  std::string bytes;  // hex
};

// Reads up to len code bytes at addr into dst; returns how many leading
// bytes are known.
using CodeReader = std::function<size_t(uint64_t addr, uint8_t* dst, size_t len)>;

class InstructionDecoder {
 public:
  explicit InstructionDecoder(const ArchDesc& arch);
  ~InstructionDecoder();
  InstructionDecoder(const InstructionDecoder&) = delete;
  InstructionDecoder& operator=(const InstructionDecoder&) = delete;

  void set_reader(CodeReader r) { reader_ = std::move(r); }
  bool available() const { return handle_ != 0; }

  // nullopt when the bytes are unknown or do not decode.
  std::optional<DecodedInstruction> decode(uint64_t pc);
  // The longest instruction of the architecture (bytes to read).
  size_t max_length() const;

 private:
  size_t handle_ = 0;  // csh
  ArchId arch_;
  CodeReader reader_;
};

}  // namespace ttd::dap
