#include "formats/ucir/ucir_step_assembler.h"

#include <utility>

namespace ttd::fmt::ucir {

StepAssembler::StepAssembler(TraceSink& sink, const ArchDesc& arch, uint64_t tid, uint64_t pid)
    : sink_(sink), emitter_(sink, arch, tid, pid), tid_(tid), pid_(pid), alive_{tid}, seen_{tid},
      batch_sink_(dynamic_cast<BatchSink*>(&sink)) {
  // What EffectEmitter::emit_reg_value sends as reg_value().
  value_bytes_.resize(arch.regs.size() + 1);
  for (size_t r = 0; r < arch.regs.size(); ++r) {
    const uint32_t bytes = arch.regs[r].bytes();
    value_bytes_[r] = arch.endian == Endian::Little && bytes - 1 < 8 ? uint8_t(bytes) : 0;
  }
}

void StepAssembler::demote(size_t from, size_t to, EffectGroup& g) {
  const BatchEffect* e = batch_.effects();
  for (size_t i = from; i < to; ++i) {
    const BatchEffect& x = e[i];
    if (x.kind == BatchEffectKind::RegValue) {
      Effect& f = g.add(OP_REG);
      f.reg = x.reg;
      f.size = x.value;
    } else if (x.kind == BatchEffectKind::MemRead) {
      Effect& f = g.add(OP_MEM_READ);
      f.addr = x.addr;
      f.size = x.size;
    } else {
      Effect& f = g.add(OP_MEM_WRITE);
      f.addr = x.addr;
      g.attach(f, batch_.bytes_of(x), x.size);
    }
  }
}

void StepAssembler::demote_pending() {
  if (!pending_in_batch_) return;
  const size_t from = held_in_batch_ ? held_end_ : batch_.ended_effects();
  demote(from, batch_.effect_count(), groups_[pending_]);
  batch_.truncate(from);
  pending_in_batch_ = false;
}

void StepAssembler::demote_held() {
  if (!held_in_batch_) return;
  // The pending effects follow the held step's: demoted first if there
  // are any (an empty pending instruction stays batched).
  if (batch_.effect_count() > held_end_) demote_pending();
  const size_t from = batch_.ended_effects();
  demote(from, held_end_, groups_[held_]);
  batch_.truncate(from);
  held_in_batch_ = false;
}

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

void StepAssembler::send_batch() {
  batch_sink_->steps(batch_);
  const size_t sent = batch_.ended_effects();
  batch_.drop_ended();
  if (held_in_batch_) held_end_ -= sent;  // the open effects moved to the front
}

void StepAssembler::emit_step(StepInfo info, const EffectGroup& g) {
  flush_batch();
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
    demote_held();
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
    flush_batch();  // empty before the first step; kept for the order's sake
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
  demote_held();
  EffectGroup& g = has_held_ ? groups_[held_] : pending();
  g.add(kEffectThreadBegin).addr = tid;
  g.append(kf);
  g.add(kEffectThreadDone);
  note_seen(tid);
  set_alive(tid, true);
}

void StepAssembler::flush_held() {
  if (!has_held_) return;
  if (held_in_batch_) {
    // A plain step: a live thread's instruction (no syscall joined it:
    // that would have demoted it) after which no thread end is owed.
    if (!end_owed_ && alive_hit_valid_ && held_info_.tid == alive_hit_) [[likely]] {
      if (!batch_.empty() && batch_.tid != held_info_.tid) send_batch();
      batch_.tid = held_info_.tid;
      batch_.pid = held_info_.pid;
      batch_.end_step(held_info_.pc, held_info_.size, held_end_);
      held_in_batch_ = false;
      has_held_ = false;
      ++steps_;
      if (batch_.full()) send_batch();
      return;
    }
    demote_held();
  }
  emit_step(held_info_, groups_[held_]);
  groups_[held_].clear();
  has_held_ = false;
}

void StepAssembler::on_step(uint8_t size) {
  flush_held();
  held_info_ = StepInfo{tid_, pid_, pc_, size, StepKind::Instruction};
  pc_ += size;
  held_in_batch_ = pending_in_batch_;  // then its effects are the batch's open ones
  held_end_ = batch_.effect_count();
  std::swap(held_, pending_);  // the old held group was cleared by flush_held
  pending_in_batch_ = batch_sink_ != nullptr;  // the new pending group is empty
  has_held_ = true;
  attach_open_ = true;
  floating_exit_ = false;
}

void StepAssembler::on_syscall(const EffectGroup& sys) {
  if (has_held_ && attach_open_) {
    if (!sys.contains_exit()) {
      demote_held();
      groups_[held_].append(sys);  // stays open: a continuation SYSCALL attaches too
      return;
    }
    floating_exit_ = true;
  }
  attach_open_ = false;
  pending().append(sys);
}

void StepAssembler::finish() {
  EffectGroup& pending = this->pending();
  if (floating_exit_ && has_held_) {
    demote_held();
    groups_[held_].append(pending);
    pending.clear();
  }
  flush_held();
  flush_batch();
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
