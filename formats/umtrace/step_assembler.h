// Turns execution records into the common step stream: one step per
// record (EID = record id) with the effects the record implies.
//
// What a record says about the machine *at* its position (a context dump,
// an instruction's register inputs and the pre-values of its outputs) is
// sent before step(), so that the state at EID n shows it; what it says
// about the state *after* it (register outputs, memory written) and the
// memory it read follow step(). Registers go through a per-thread
// RegisterShadow (sub-register pieces merged into gdb registers).
//
// Flags: an instrumentation-off gap (0x02) makes every register of every
// thread and all memory given so far unknown, once per gap (see gap());
// a non-executed conditional (0x04) changes nothing; unreliable inputs or
// outputs (0x10..0x80, per table version) are not used, outputs become
// unknown, and the step carries "unreliable": 1.
#pragma once
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "formats/common/trace_sink.h"
#include "formats/umtrace/exec_table.h"
#include "formats/umtrace/instruction_table.h"
#include "formats/umtrace/memory_tracker.h"
#include "formats/umtrace/register_shadow.h"
#include "formats/umtrace/syscall_table.h"

namespace ttd::fmt::umtrace {

struct AssemblerSetup {
  const RegisterResolver* regs = nullptr;
  InstructionTable* instructions = nullptr;
  const SyscallTable* syscalls = nullptr;  // null when the trace has no system call table
  uint16_t elem_count = 0;                 // registers in the context map
  uint64_t pid = 1;
  std::vector<uint64_t> tids;              // thread table row -> tid; empty: no table (tid = row + 1)
  uint32_t exec_version = 0;
  std::string vtable_path, prev_next_path;
};

class StepAssembler {
 public:
  StepAssembler(AssemblerSetup setup, TraceSink& sink);
  Status record(const ExecRecord& r);
  // After the last record: every thread's last record must say "no next".
  Status finish();

 private:
  struct Thread {
    uint64_t tid = 0;
    RegisterShadow regs;
    int64_t last_eid = -1;
    int64_t expected_next = -1;  // what the previous record's "next" promised
  };
  Result<Thread*> thread(const ExecRecord& r);
  Status check_control_flow(const ExecRecord& r, Thread& t);
  void gap(const ExecRecord& r, Thread& t);
  Status instruction(const ExecRecord& r, Thread& t);
  Status context_event(const ExecRecord& r, Thread& t, uint64_t context_at, StepKind kind);
  Status syscall_attrs(const ExecRecord& r, int64_t id, bool entry);
  void reliability_attrs(const ExecRecord& r);
  Error cut_short(const ExecRecord& r, uint64_t need, const char* what) const;

  AssemblerSetup s_;
  TraceSink& sink_;
  const ArchDesc& arch_;
  std::unordered_map<uint32_t, Thread> threads_;
  uint32_t last_row_ = ~0u;
  Thread* last_thread_ = nullptr;
  MemoryTracker memory_;
  int64_t last_gap_eid_ = -1;
};

}  // namespace ttd::fmt::umtrace
