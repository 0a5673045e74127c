// Capstone behind two questions: what does the instruction at pc do to the
// call stack (call, return, neither), and how does it read (disassembly).
// Code bytes come from a caller-supplied reader (trace memory first, then
// the program file); decisions are cached per pc since code does not change
// in the traces we debug (self-modifying code would need a per-EID cache).
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>

#include "state/arch.h"

namespace ttd::dap {

enum class Flow : uint8_t { Other, Call, Return, Unknown };

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

  Flow flow(uint64_t pc);
  // nullopt when the bytes are unknown or do not decode.
  std::optional<DecodedInstruction> decode(uint64_t pc);
  // The longest instruction of the architecture (bytes to read).
  size_t max_length() const;

 private:
  size_t handle_ = 0;  // csh
  ArchId arch_;
  CodeReader reader_;
  std::unordered_map<uint64_t, Flow> flows_;
};

}  // namespace ttd::dap
