// What one instruction reads and which registers it writes, decoded with
// Capstone, for the backward dataflow query (origin.h). Per architecture:
//   x86-64, x86  explicit register operands, flags, base/index/segment
//                registers of memory operands, implicit registers (rsp of
//                push/pop/call/ret, rsi/rdi of string instructions, rcx of
//                rep), immediates; zeroing idioms (xor r, r) give 0
//   aarch64, arm explicit and implicit registers, flags (nzcv), memory
//                operand base/index registers, immediates; the zero
//                register reads as the constant 0
//   mips, ppc32  Unsupported: Capstone 4 gives no operand access there
// Memory reads are told as "reads memory" only: which bytes the step read
// is the trace's recorded access, not a guess from the operand.
// Sub-registers map to the architecture's full register (eax -> rax,
// w0 -> x0, ymm1 -> xmm1); a register the table does not have is an
// Unmapped input, so the caller can say where its knowledge stops.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "state/arch.h"

namespace ttd::query {

// How the instruction used an input.
enum class InputRole : uint8_t {
  Data,      // an explicit source operand
  Address,   // base, index or segment of a memory operand
  Flags,     // condition flags (cmov, adc, jcc, csel ...)
  Implicit,  // read without being an operand (rsp of push, rsi of movs)
  Count,     // rcx of a rep prefix
};
const char* input_role_name(InputRole r);  // "data", "address", "flags", "implicit", "count"

struct InstructionInput {
  enum class Kind : uint8_t {
    Register,  // reg: the architecture register index
    Constant,  // value: an immediate, the zero register, the pc or a return address
    Unmapped,  // a register the architecture table does not list (name)
  };
  Kind kind = Kind::Register;
  InputRole role = InputRole::Data;
  uint16_t reg = 0;
  uint64_t value = 0;
  std::string name;  // Constant: "immediate", "zero register", "pc", "return address"; Unmapped: Capstone's name
};

struct DecodedInstruction {
  enum class Status : uint8_t {
    Ok,
    NoCode,       // no code bytes at the pc
    Undecodable,  // the bytes do not decode
    Unsupported,  // the architecture's operand reads are not decoded
  };
  Status status = Status::NoCode;
  std::string text;  // "mov dword ptr [rax + 0xc], 0" ("" unless decoded)
  uint32_t size = 0;
  std::vector<InstructionInput> inputs;  // deduplicated, in operand order
  std::array<uint64_t, 4> writes{};      // bit i: architecture register i is written
  bool reads_memory = false;             // a memory operand is read (or the stack, by pop/ret)
  bool constant_result = false;          // zeroing idiom: the result does not depend on the inputs
  std::string note;                      // why, when status is not Ok

  bool writes_reg(uint16_t r) const { return r < 256 && ((writes[r >> 6] >> (r & 63)) & 1); }
};

class InstructionInputDecoder {
 public:
  explicit InstructionInputDecoder(const ArchDesc& arch);
  ~InstructionInputDecoder();
  InstructionInputDecoder(const InstructionInputDecoder&) = delete;
  InstructionInputDecoder& operator=(const InstructionInputDecoder&) = delete;

  // Decodes the first instruction of `code`, located at pc.
  DecodedInstruction decode(uint64_t pc, std::span<const uint8_t> code) const;
  // Bytes worth fetching at a pc (the longest instruction of the arch).
  size_t max_insn_bytes() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ttd::query
