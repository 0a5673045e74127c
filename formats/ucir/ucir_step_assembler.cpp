#include "formats/ucir/ucir_step_assembler.h"

#include <utility>

namespace ttd::fmt::ucir {

StepAssembler::StepAssembler(TraceSink& sink, const ArchDesc& arch, uint64_t tid, uint64_t pid)
    : sink_(sink), emitter_(sink, arch, tid, pid), tid_(tid), pid_(pid) {}

void StepAssembler::emit_step(StepInfo info, const EffectGroup& g) {
  if (end_owed_) {
    sink_.thread_end(tid_);
    end_owed_ = false;
    thread_ended_ = true;
  }
  if (g.syscall && info.kind != StepKind::Marker) info.kind = StepKind::Syscall;
  sink_.step(info);
  ++steps_;
  if (thread_ended_) {
    // Ops after OP_EXIT: usercorn would call it a new process; we keep
    // the one thread and say it began again.
    sink_.thread_begin(tid_, pid_);
    thread_ended_ = false;
  }
  if (g.syscall) {
    sink_.attr("syscall", AttrValue(uint64_t(g.sys_num)));
    sink_.attr("args", AttrValue(g.sys_args));
    sink_.attr("ret", AttrValue(g.sys_ret));
  }
  if (emitter_.emit(g)) end_owed_ = true;
}

void StepAssembler::flush_held() {
  if (!has_held_) return;
  emit_step(held_info_, groups_[held_]);
  groups_[held_].clear();
  has_held_ = false;
}

void StepAssembler::on_step(uint8_t size) {
  flush_held();
  held_info_ = StepInfo{tid_, pid_, pc_, size, StepKind::Instruction};
  pc_ += size;
  std::swap(held_, pending_);  // the old held group was cleared by flush_held
  has_held_ = true;
  attach_open_ = true;
  floating_exit_ = false;
}

void StepAssembler::on_syscall(const EffectGroup& sys) {
  if (has_held_ && attach_open_) {
    if (!sys.contains_exit()) {
      groups_[held_].append(sys);  // stays open: a continuation SYSCALL attaches too
      return;
    }
    floating_exit_ = true;
  }
  attach_open_ = false;
  groups_[pending_].append(sys);
}

void StepAssembler::finish() {
  EffectGroup& pending = groups_[pending_];
  if (floating_exit_ && has_held_) {
    groups_[held_].append(pending);
    pending.clear();
  }
  flush_held();
  if (!pending.empty()) {
    // Effects with no OP_STEP after them (a cut-off trace): keep them as
    // a marker step rather than lose them or pin them on another step.
    emit_step(StepInfo{tid_, pid_, pc_, 0, StepKind::Marker}, pending);
    sink_.attr("note", AttrValue(std::string("effects after the last OP_STEP")));
    pending.clear();
  }
  if (end_owed_) {
    sink_.thread_end(tid_);
    end_owed_ = false;
  }
  sink_.end();
}

}  // namespace ttd::fmt::ucir
