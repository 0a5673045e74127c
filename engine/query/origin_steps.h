// The facts the origin walk (origin.h) needs about single steps, behind
// one object per query: a step's kind, thread, recorded memory reads and
// syscall attributes; the machine state before it; its decoded
// instruction; and the last step that wrote a register, counting writes
// that left the value unchanged (which change-only formats do not record).
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "engine/cursor.h"
#include "engine/query/chunk_walk.h"
#include "engine/query/instruction_inputs.h"
#include "engine/query/origin.h"
#include "engine/trace.h"

namespace ttd::query {

struct StepFacts {
  uint64_t eid = 0, pc = 0, tid = 0, pid = 0;
  fmt::StepKind kind = fmt::StepKind::Instruction;
  struct Read {
    uint64_t addr = 0, size = 0;
    std::optional<std::vector<uint8_t>> value;
  };
  std::vector<Read> reads;
  std::vector<uint16_t> regs_unknown;  // registers the step made unknown (its own thread)
  std::optional<OriginSyscall> syscall;
};

// The last step before a position that wrote a register.
struct RegisterWriter {
  uint64_t eid = 0;
  bool value_unknown = false;  // the trace says the write left the register unknown
};

class OriginSteps {
 public:
  OriginSteps(const Trace& t, const CancelCheck& cancel);
  ~OriginSteps();

  Result<StepFacts> step(uint64_t eid);
  // The state before step eid (valid until the next call).
  Result<const MachineState*> state_at(uint64_t eid);
  // The instruction step eid runs (code bytes from the state before it,
  // else from the program image).
  Result<DecodedInstruction> instruction_at(uint64_t eid, uint64_t pc);
  // nullopt: no step before `at` wrote the register of thread tid.
  Result<std::optional<RegisterWriter>> last_register_writer(uint16_t reg, uint64_t at, uint64_t tid);

  const InstructionInputDecoder& decoder() const { return decoder_; }

 private:
  // The decoded instruction at a pc, from the code at the start of chunk c.
  const DecodedInstruction& pc_instruction(size_t chunk, uint64_t pc);
  std::vector<uint8_t> code_bytes(const MachineState& st, uint64_t pc) const;

  const Trace& t_;
  CancelCheck cancel_;
  InstructionInputDecoder decoder_;
  Cursor cursor_, code_cursor_;
  std::unordered_map<uint64_t, DecodedInstruction> by_pc_;
  std::optional<uint32_t> key_syscall_, key_args_, key_ret_;
};

// The Linux syscall name of a number on an architecture ("" if unknown).
std::string syscall_name(ArchId arch, uint64_t number);

}  // namespace ttd::query
