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

uint64_t& StateApplier::other_due_pc(ThreadState& t) {
  size_t i = 0;
  while (i < due_pcs_.size() && due_pcs_[i].first != &t) ++i;
  if (i == due_pcs_.size()) due_pcs_.emplace_back(&t, 0);
  due_at_ = i;
  return due_pcs_[i].second;
}

void StateApplier::drop_due_pc(ThreadState& t) {
  for (size_t i = 0; i < due_pcs_.size(); ++i)
    if (due_pcs_[i].first == &t) {
      due_pcs_.erase(due_pcs_.begin() + ptrdiff_t(i));
      due_at_ = SIZE_MAX;
      return;
    }
}

void StateApplier::flush_pcs() {
  for (const auto& [t, pc] : due_pcs_) t->regs.set_u64(pc_index_, pc);
  due_pcs_.clear();
  due_at_ = SIZE_MAX;
}

void StateApplier::reg_unknown(uint32_t tidx, uint16_t reg) {
  ThreadState& t = thread(tidx);
  if (reg == pc_index_ && defer_pcs_) drop_due_pc(t);
  t.regs.invalidate(reg);
}

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
