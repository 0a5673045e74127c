// Applies decoded effects to a MachineState. The one place that says what
// an effect does to the state, used by the index builder (live state) and
// by the cursor (replay from a keyframe), so both reach identical states.
#pragma once
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "engine/step_codec.h"
#include "state/machine_state.h"

namespace ttd {

struct ThreadSlot {
  uint64_t tid = 0, pid = 0;
};

// Final, and the per-step effects inline: the index builder calls them
// directly for every effect of a trace.
class StateApplier final : public EffectVisitor {
 public:
  // st must have its architecture (MachineState(arch)).
  StateApplier(MachineState& st, const std::vector<ThreadSlot>& threads)
      : st_(st), threads_(threads), pc_index_(st.arch().pc_index) {}

  // Before a step's effects: its thread exists and its pc is the step's pc.
  void begin_step(uint32_t tidx, uint64_t pc, uint32_t size) { set_pc(thread(tidx), pc); }
  // After a step's effects: instruction steps leave the pc just past them
  // (the next step of that thread sets it exactly).
  void end_step(uint32_t tidx, uint64_t pc, uint32_t size) {
    if (size == 0) return;
    ThreadState& t = thread(tidx);
    if (defer_pcs_) [[likely]] {
      due_pc(t) = pc + size;
      return;
    }
    t.regs.set_u64(pc_index_, pc + size);
  }
  // The state at a position: the thread of the step there has its pc.
  void position(uint32_t tidx, uint64_t pc) { set_pc(thread(tidx), pc); }

  // Seek replay (engine/cursor.cpp): the pc end_step() leaves waits, per
  // thread, until flush_pcs() (a replay writes it on every step and only
  // the last value is read). Any other write or invalidation of a thread's
  // pc (begin_step, position, a register effect) drops the waiting value
  // first, so the state reached is the same. Flush before the state is
  // read and before its threads may go away.
  void defer_pcs() { defer_pcs_ = true; }
  void flush_pcs();

  void reg(uint32_t tidx, uint16_t reg, const uint8_t* value, uint32_t len) override {
    ThreadState& t = thread(tidx);
    if (reg == pc_index_ && defer_pcs_) drop_due_pc(t);
    t.regs.set_bytes(reg, {value, len});
  }
  // reg() of a little-endian target's register of `bytes` (1 to 8) bytes,
  // from the integer those bytes hold.
  void reg_value(uint32_t tidx, uint16_t reg, uint64_t value, uint32_t bytes) {
    ThreadState& t = thread(tidx);
    if (reg == pc_index_ && defer_pcs_) drop_due_pc(t);
    t.regs.set_le_value(reg, value, bytes);
  }
  void reg_unknown(uint32_t tidx, uint16_t reg) override;
  void mem_write(uint64_t pid, uint64_t addr, const uint8_t* bytes, uint64_t len) override {
    process(pid).memory.write(addr, bytes, len);
  }
  void mem_read(uint64_t pid, uint64_t addr, uint64_t size, const uint8_t* bytes) override {
    // A read whose value the trace gives tells us the memory content.
    if (bytes) process(pid).memory.write(addr, bytes, size);
  }
  void mem_unknown(uint64_t pid, uint64_t addr, uint64_t size) override;
  void mem_map(uint64_t pid, uint64_t addr, uint64_t size, uint8_t prot, std::string_view name) override;
  void mem_unmap(uint64_t pid, uint64_t addr, uint64_t size) override;
  void mem_protect(uint64_t pid, uint64_t addr, uint64_t size, uint8_t prot) override;
  void thread_begin(uint32_t tidx) override;
  void thread_end(uint32_t tidx) override;

 private:
  ThreadState& thread(uint32_t tidx) {
    if (tidx == last_tidx_) [[likely]]
      return *last_thread_;
    return other_thread(tidx);
  }
  ProcessState& process(uint64_t pid) {
    if (pid == last_pid_ && last_process_) [[likely]]
      return *last_process_;
    return other_process(pid);
  }
  ThreadState& other_thread(uint32_t tidx);
  ProcessState& other_process(uint64_t pid);
  void set_pc(ThreadState& t, uint64_t pc) {
    if (defer_pcs_) drop_due_pc(t);
    t.regs.set_u64(pc_index_, pc);
  }
  // The waiting pc of t (due_pcs_ entry), made if there is none.
  uint64_t& due_pc(ThreadState& t) {
    if (due_at_ < due_pcs_.size() && due_pcs_[due_at_].first == &t) [[likely]]
      return due_pcs_[due_at_].second;
    return other_due_pc(t);
  }
  uint64_t& other_due_pc(ThreadState& t);
  void drop_due_pc(ThreadState& t);

  MachineState& st_;
  const std::vector<ThreadSlot>& threads_;
  // Small caches: most effects hit the same thread and process.
  uint32_t last_tidx_ = ~0u;
  ThreadState* last_thread_ = nullptr;
  uint64_t last_pid_ = ~0ull;
  ProcessState* last_process_ = nullptr;
  uint16_t pc_index_;
  bool defer_pcs_ = false;
  // Waiting pcs (defer_pcs) by thread; threads live in a std::map, so the
  // pointers stay valid while the state keeps them.
  std::vector<std::pair<ThreadState*, uint64_t>> due_pcs_;
  size_t due_at_ = SIZE_MAX;  // the entry used last
};

}  // namespace ttd
