#include "engine/state_apply.h"

namespace ttd {

ThreadState& StateApplier::other_thread(uint32_t tidx) {
  const ThreadSlot& s = threads_[tidx];
  last_thread_ = &st_.thread(s.tid, s.pid);
  last_tidx_ = tidx;
  last_process_ = nullptr;  // creating a thread may create a process
  last_pid_ = ~0ull;
  return *last_thread_;
}

ProcessState& StateApplier::other_process(uint64_t pid) {
  last_process_ = &st_.process(pid);
  last_pid_ = pid;
  return *last_process_;
}

void StateApplier::begin_step(uint32_t tidx, uint64_t pc, uint32_t size) {
  ThreadState& t = thread(tidx);
  t.regs.set_u64(st_.arch().pc_index, pc);
}

void StateApplier::end_step(uint32_t tidx, uint64_t pc, uint32_t size) {
  if (size == 0) return;
  thread(tidx).regs.set_u64(st_.arch().pc_index, pc + size);
}

void StateApplier::position(uint32_t tidx, uint64_t pc) { thread(tidx).regs.set_u64(st_.arch().pc_index, pc); }

void StateApplier::reg_unknown(uint32_t tidx, uint16_t reg) { thread(tidx).regs.invalidate(reg); }

void StateApplier::mem_unknown(uint64_t pid, uint64_t addr, uint64_t size) {
  process(pid).memory.invalidate(addr, size);
}

void StateApplier::mem_map(uint64_t pid, uint64_t addr, uint64_t size, uint8_t prot, std::string_view name) {
  ProcessState& p = process(pid);
  p.regions.map(MemoryRegion{addr, size, prot, std::string(name)});
  p.memory.fill(addr, size, 0);  // a new mapping reads as zeros
}

void StateApplier::mem_unmap(uint64_t pid, uint64_t addr, uint64_t size) {
  ProcessState& p = process(pid);
  p.regions.unmap(addr, size);
  p.memory.invalidate(addr, size);
}

void StateApplier::mem_protect(uint64_t pid, uint64_t addr, uint64_t size, uint8_t prot) {
  process(pid).regions.protect(addr, size, prot);
}

void StateApplier::thread_begin(uint32_t tidx) { thread(tidx).alive = true; }
void StateApplier::thread_end(uint32_t tidx) { thread(tidx).alive = false; }

}  // namespace ttd
