// Turns UCIR's op order into the sink's step order.
//
// usercorn's tracer (trace.go) lags one instruction: for each instruction
// it writes the memory ops, then the register changes, then OP_STEP; a
// syscall instruction's OP_STEP is followed by an OP_SYSCALL holding the
// kernel's effects. The sink wants step() first and then its effects, so:
//  - effects are collected in a pending group until OP_STEP arrives;
//  - the step is then held until the next op shows whether an OP_SYSCALL
//    belongs to it (one directly after OP_STEP does: the step becomes
//    StepKind::Syscall, with attrs "syscall", "args", "ret", and the
//    syscall's nested ops become its effects, after the others);
//  - a SYSCALL not directly after an OP_STEP belongs to the next step.
// Exit quirk: usercorn's OnExit flushes the exit syscall BEFORE the exit
// instruction's registers and OP_STEP, so a SYSCALL holding OP_EXIT right
// after an OP_STEP goes to the next step if one follows; if the stream
// ends first (ttd's writer order) it joins the held step.
// OP_EXIT ends the step's thread (thread_end) after the last effect of its
// step; if it was the last step of the trace, every other thread ends with
// it (the process is gone).
// Threads (ttd's extension, docs/formats/ucir.md "Threads"): set_thread()
// says whose steps follow (a frame's pid field); a thread keyframe's
// effects join the held step (the clone that made the thread).
// Step batches, for a sink that takes them (fmt::BatchSink, the index
// builder): the parser puts an instruction's registers, reads and writes
// straight into a StepBatch (no EffectGroup) while that is all it has;
// the step, held there, goes to the sink with its batch if it is plain
// (a live thread's instruction, no syscall joined it, no thread end
// owed: nearly all of them). Anything else takes the instruction's
// effects back into the groups (demote) and goes the per-call way, after
// the batch is handed over, so the sink sees the calls in the same order.
#pragma once
#include <vector>

#include "formats/common/step_batch.h"
#include "formats/ucir/effect_emitter.h"
#include "formats/ucir/ucir_effects.h"

namespace ttd::fmt::ucir {

class StepAssembler {
 public:
  StepAssembler(TraceSink& sink, const ArchDesc& arch, uint64_t tid, uint64_t pid);

  // Effects of the instruction whose OP_STEP has not come yet.
  EffectGroup& pending() {
    if (pending_in_batch_) [[unlikely]]
      demote_pending();
    return groups_[pending_];
  }
  // The common pending effects: straight into the batch while the
  // instruction has only those (and the sink takes batches).
  void pending_reg(uint16_t reg, uint64_t value) {
    if (pending_in_batch_ && value_bytes_[reg]) [[likely]] {
      batch_.room(1);
      return batch_.reg_value(reg, value, value_bytes_[reg]);
    }
    Effect& e = pending().add(OP_REG);
    e.reg = reg;
    e.size = value;
  }
  void pending_read(uint64_t addr, uint32_t size) {
    if (pending_in_batch_) [[likely]] {
      batch_.room(1);
      return batch_.mem_read(addr, size);
    }
    Effect& e = pending().add(OP_MEM_READ);
    e.addr = addr;
    e.size = size;
  }
  void pending_write(uint64_t addr, const uint8_t* p, uint32_t n) {
    if (pending_in_batch_) [[likely]] {
      batch_.room(1);
      return batch_.mem_write(addr, p, n);
    }
    EffectGroup& g = pending();
    Effect& e = g.add(OP_MEM_WRITE);
    e.addr = addr;
    g.attach(e, p, n);
  }
  EffectEmitter& emitter() { return emitter_; }
  void set_pc(uint64_t pc) { pc_ = pc; }
  uint64_t pc() const { return pc_; }  // of the next OP_STEP
  // The thread whose ops follow (OP_FRAME's pid field + 1).
  void set_thread(uint64_t tid) {
    if (tid != tid_) switch_thread(tid);
  }
  // A thread keyframe: `tid` begins with the registers (and pc) in `kf`,
  // as an effect of the step before it.
  void on_thread_keyframe(uint64_t tid, const EffectGroup& kf);
  // Threads named so far (by a frame or a thread keyframe), thread 1 included.
  size_t threads_seen() const { return seen_.size(); }
  bool seen(uint64_t tid) const;
  // Any op other than NOP, a frame header or an attached SYSCALL: after it
  // a SYSCALL no longer belongs to the held step.
  void note_op() { attach_open_ = false; }
  void on_step(uint8_t size);
  // `sys` holds the syscall's attributes and nested effects.
  void on_syscall(const EffectGroup& sys);
  // End of stream: emits what is held, then calls sink.end().
  void finish();
  // Hands the batched steps to the sink (before a call that bypasses the
  // assembler, and where a read stops).
  void flush_batch() {
    if (!batch_.empty()) send_batch();
  }
  uint64_t steps() const { return steps_; }

 private:
  void flush_held();
  void send_batch();
  // The batch's open effects back into the groups, when the instruction
  // (pending) or the held step turns out not to be plain.
  void demote_pending();
  void demote_held();
  void demote(size_t from, size_t to, EffectGroup& g);
  void emit_step(StepInfo info, const EffectGroup& g);
  void switch_thread(uint64_t tid);
  bool alive(uint64_t tid) const;
  void note_seen(uint64_t tid) {
    if (!seen(tid)) seen_.push_back(tid);
  }
  void set_alive(uint64_t tid, bool on);

  TraceSink& sink_;
  EffectEmitter emitter_;
  uint64_t tid_, pid_;
  // The held step's group and the pending one; a step swaps their roles
  // by flipping indexes, never moving the vectors.
  EffectGroup groups_[2];
  int held_ = 0, pending_ = 1;
  StepInfo held_info_;
  bool has_held_ = false;
  bool attach_open_ = false;
  bool floating_exit_ = false;  // pending_ starts with an exit syscall that came right after the held step
  bool end_owed_ = false;       // thread_end(end_tid_) due after the current step's effects
  uint64_t end_tid_ = 0;
  std::vector<uint64_t> alive_;  // threads begun and not ended (few: a linear search)
  // The thread last found alive, so a run of one thread's steps skips the
  // search (it was ~1 % of a gzip build); forgotten when a thread ends.
  uint64_t alive_hit_ = 0;
  bool alive_hit_valid_ = false;
  std::vector<uint64_t> seen_;
  uint64_t pc_ = 0;
  uint64_t steps_ = 0;
  // Batches (docs/design.md "Step batches"): only for a sink that takes
  // them. The open effects at the batch's end are the held step's (up to
  // held_end_, while held_in_batch_) and then the pending instruction's
  // (while pending_in_batch_).
  BatchSink* batch_sink_ = nullptr;
  StepBatch batch_;
  bool pending_in_batch_ = false, held_in_batch_ = false;
  size_t held_end_ = 0;
  std::vector<uint8_t> value_bytes_;  // per register: its bytes if OP_REG goes out as reg_value, else 0
};

}  // namespace ttd::fmt::ucir
