#include "formats/ucir/ucir_step_assembler.h"

#include <utility>

namespace ttd::fmt::ucir {

StepAssembler::StepAssembler(TraceSink& sink, const ArchDesc& arch, uint64_t tid, uint64_t pid)
    : sink_(sink), emitter_(sink, arch, tid, pid), tid_(tid), pid_(pid), alive_{tid}, seen_{tid} {}

bool StepAssembler::seen(uint64_t tid) const {
  for (uint64_t t : seen_)
    if (t == tid) return true;
  return false;
}

bool StepAssembler::alive(uint64_t tid) const {
  for (uint64_t t : alive_)
    if (t == tid) return true;
  return false;
}

void StepAssembler::set_alive(uint64_t tid, bool on) {
  if (!on && tid == alive_hit_) alive_hit_valid_ = false;
  for (auto it = alive_.begin(); it != alive_.end(); ++it)
    if (*it == tid) {
      if (!on) alive_.erase(it);
      return;
    }
  if (on) alive_.push_back(tid);
}

void StepAssembler::emit_step(StepInfo info, const EffectGroup& g) {
  if (end_owed_) {
    sink_.thread_end(end_tid_);
    set_alive(end_tid_, false);
    end_owed_ = false;
  }
  if (g.syscall && info.kind != StepKind::Marker) info.kind = StepKind::Syscall;
  sink_.step(info);
  ++steps_;
  if (alive_hit_valid_ && info.tid == alive_hit_) [[likely]] {
  } else if (alive(info.tid)) {
    alive_hit_ = info.tid;
    alive_hit_valid_ = true;
  } else {
    // A thread without a keyframe, or ops after its OP_EXIT (usercorn
    // would call that a new process; we say the thread began again).
    sink_.thread_begin(info.tid, pid_);
    set_alive(info.tid, true);
  }
  if (g.syscall) {
    sink_.attr("syscall", AttrValue(uint64_t(g.sys_num)));
    sink_.attr("args", AttrValue(g.sys_args));
    sink_.attr("ret", AttrValue(g.sys_ret));
  }
  if (emitter_.emit(g, info.tid)) {
    end_owed_ = true;
    end_tid_ = info.tid;
  }
}

void StepAssembler::switch_thread(uint64_t tid) {
  // ttd's writer order: an exit syscall right after its thread's step
  // belongs to that step (the usercorn quirk puts it on the next step,
  // which here would be another thread's).
  if (floating_exit_ && has_held_) {
    groups_[held_].append(groups_[pending_]);
    groups_[pending_].clear();
  }
  floating_exit_ = false;
  attach_open_ = false;  // a SYSCALL after the switch is not the other thread's
  tid_ = tid;
  note_seen(tid);
}

void StepAssembler::on_thread_keyframe(uint64_t tid, const EffectGroup& kf) {
  if (steps_ == 0 && !has_held_) {
    // Before the first OP_STEP (`ttd convert`'s threads alive before the
    // first step): part of the state before EID 0, as the process keyframe.
    EffectGroup g;
    g.add(kEffectThreadBegin).addr = tid;
    g.append(kf);
    g.add(kEffectThreadDone);
    (void)emitter_.emit(g, tid_);  // an OP_EXIT in a keyframe means nothing
    note_seen(tid);
    set_alive(tid, true);
    return;
  }
  EffectGroup& g = has_held_ ? groups_[held_] : groups_[pending_];
  g.add(kEffectThreadBegin).addr = tid;
  g.append(kf);
  g.add(kEffectThreadDone);
  note_seen(tid);
  set_alive(tid, true);
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
    // The last step exited: the process is gone, and every thread with it.
    sink_.thread_end(end_tid_);
    set_alive(end_tid_, false);
    for (uint64_t t : alive_) sink_.thread_end(t);
    alive_.clear();
    alive_hit_valid_ = false;
    end_owed_ = false;
  }
  sink_.end();
}

}  // namespace ttd::fmt::ucir
