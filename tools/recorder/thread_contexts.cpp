#include "tools/recorder/thread_contexts.h"

#include <string>

namespace ttd::rec {

namespace {

struct ThreadRegs {
  int sp, tls;
};

ThreadRegs thread_regs(ArchId id) {
  if (id == ArchId::AArch64) return {UC_ARM64_REG_SP, UC_ARM64_REG_TPIDR_EL0};
  return {UC_X86_REG_RSP, UC_X86_REG_FS_BASE};
}

Status uc_failed(const char* what, uc_err err) {
  return make_error("emulator", std::string(what) + ": " + uc_strerror(err));
}

}  // namespace

ThreadContexts::~ThreadContexts() {
  for (auto& [n, p] : parked_)
    if (p.ctx) uc_context_free(p.ctx);
}

Result<ThreadContexts::Parked*> ThreadContexts::slot(uint32_t number) {
  Parked& p = parked_[number];
  if (!p.ctx)
    if (uc_err err = uc_context_alloc(uc_, &p.ctx); err != UC_ERR_OK)
      return uc_failed("cannot allocate a thread context", err).error();
  return &p;
}

Status ThreadContexts::save(uint32_t number, uint64_t resume_pc) {
  auto p = slot(number);
  if (!p) return p.error();
  if (uc_err err = uc_context_save(uc_, (*p)->ctx); err != UC_ERR_OK)
    return uc_failed("cannot save a thread's CPU state", err);
  (*p)->shadow = tracker_.snapshot();
  (*p)->pc = resume_pc;
  return {};
}

Result<uint64_t> ThreadContexts::load(uint32_t number) {
  auto it = parked_.find(number);
  if (it == parked_.end() || !it->second.ctx)
    return make_error("emulator", "thread " + std::to_string(number) + " has no saved CPU state");
  if (uc_err err = uc_context_restore(uc_, it->second.ctx); err != UC_ERR_OK)
    return uc_failed("cannot restore a thread's CPU state", err).error();
  tracker_.restore(it->second.shadow);
  return it->second.pc;
}

void ThreadContexts::drop(uint32_t number) {
  auto it = parked_.find(number);
  if (it == parked_.end()) return;
  if (it->second.ctx) uc_context_free(it->second.ctx);
  parked_.erase(it);
}

Status ThreadContexts::create(uint32_t number, uint64_t pc, uint64_t stack, std::optional<uint64_t> tls) {
  // Borrow the emulator: keep the parent, shape the child, save it, put
  // the parent back.
  uc_context* parent = nullptr;
  if (uc_err err = uc_context_alloc(uc_, &parent); err != UC_ERR_OK)
    return uc_failed("cannot allocate a thread context", err);
  const std::vector<uint8_t> parent_shadow = tracker_.snapshot();
  Status st;
  if (uc_err err = uc_context_save(uc_, parent); err != UC_ERR_OK) {
    st = uc_failed("cannot save a thread's CPU state", err);
  } else {
    const ThreadRegs r = thread_regs(guest_.id());
    uint64_t zero = 0;
    uc_reg_write(uc_, guest_.syscall_abi().ret, &zero);
    if (stack) uc_reg_write(uc_, r.sp, &stack);
    if (tls) uc_reg_write(uc_, r.tls, &*tls);
    tracker_.load_all();
    st = save(number, pc);
    if (uc_err err = uc_context_restore(uc_, parent); err != UC_ERR_OK && st)
      st = uc_failed("cannot restore a thread's CPU state", err);
    tracker_.restore(parent_shadow);
  }
  uc_context_free(parent);
  return st;
}

void ThreadContexts::set_stack_and_tls(uint64_t stack, std::optional<uint64_t> tls) {
  const ThreadRegs r = thread_regs(guest_.id());
  if (stack) uc_reg_write(uc_, r.sp, &stack);
  if (tls) uc_reg_write(uc_, r.tls, &*tls);
}

std::span<const uint8_t> ThreadContexts::shadow_of(uint32_t number) const {
  auto it = parked_.find(number);
  return it == parked_.end() ? std::span<const uint8_t>() : std::span<const uint8_t>(it->second.shadow);
}

}  // namespace ttd::rec
