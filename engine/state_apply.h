// Applies decoded effects to a MachineState. The one place that says what
// an effect does to the state, used by the index builder (live state) and
// by the cursor (replay from a keyframe), so both reach identical states.
#pragma once
#include <cstdint>
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
  StateApplier(MachineState& st, const std::vector<ThreadSlot>& threads) : st_(st), threads_(threads) {}

  // Before a step's effects: its thread exists and its pc is the step's pc.
  void begin_step(uint32_t tidx, uint64_t pc, uint32_t size);
  // After a step's effects: instruction steps leave the pc just past them
  // (the next step of that thread sets it exactly).
  void end_step(uint32_t tidx, uint64_t pc, uint32_t size);
  // The state at a position: the thread of the step there has its pc.
  void position(uint32_t tidx, uint64_t pc);

  void reg(uint32_t tidx, uint16_t reg, const uint8_t* value, uint32_t len) override {
    thread(tidx).regs.set_bytes(reg, {value, len});
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

  MachineState& st_;
  const std::vector<ThreadSlot>& threads_;
  // Small caches: most effects hit the same thread and process.
  uint32_t last_tidx_ = ~0u;
  ThreadState* last_thread_ = nullptr;
  uint64_t last_pid_ = ~0ull;
  ProcessState* last_process_ = nullptr;
};

}  // namespace ttd
