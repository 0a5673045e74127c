#include "formats/umtrace/step_assembler.h"

#include <cstring>

#include "formats/umtrace/context_record.h"
#include "formats/umtrace/umtrace_layout.h"

namespace ttd::fmt::umtrace {

namespace {

// Which parts of a record the unreliable flags leave usable. Version 0:
// 0x10 inputs and outputs garbage, 0x20 outputs, 0x40 output memory, 0x80
// internal error (trust nothing). Version 1: 0x10 inputs, 0x20 outputs,
// 0x40 faulted and 0x80 aborted (outputs may not have been written).
struct Reliability {
  bool inputs = true, outputs = true;
};
Reliability reliability(uint8_t flags, uint32_t version) {
  Reliability r;
  if (version == 0) {
    r.inputs = !(flags & 0x90);
    r.outputs = !(flags & 0xf0);
  } else {
    r.inputs = !(flags & 0x10);
    r.outputs = !(flags & 0xe0);
  }
  return r;
}

const char* context_reason(uint8_t type) {
  switch (ExecType(type)) {
    case ExecType::ContextApc: return "asynchronous procedure call";
    case ExecType::ContextException: return "exception handling";
    case ExecType::ContextCallback: return "callback";
    default: return "unknown";
  }
}

}  // namespace

StepAssembler::StepAssembler(AssemblerSetup setup, TraceSink& sink)
    : s_(std::move(setup)), sink_(sink), arch_(s_.regs->arch()) {}

Error StepAssembler::cut_short(const ExecRecord& r, uint64_t need, const char* what) const {
  return make_error_at(s_.vtable_path, r.offset,
                       "record " + std::to_string(r.eid) + " (" + what + ") has " + std::to_string(r.data_size) +
                           " data bytes, needs " + std::to_string(need) + ": record cut short");
}

Result<StepAssembler::Thread*> StepAssembler::thread(const ExecRecord& r) {
  if (r.thread == last_row_) return last_thread_;
  auto it = threads_.find(r.thread);
  if (it == threads_.end()) {
    uint64_t tid;
    if (s_.tids.empty()) {
      tid = uint64_t(r.thread) + 1;  // gdb thread ids start at 1
    } else if (r.thread < s_.tids.size()) {
      tid = s_.tids[r.thread];
    } else {
      return make_error_at(s_.vtable_path, r.offset,
                           "record " + std::to_string(r.eid) + " belongs to thread " + std::to_string(r.thread) +
                               ", but the thread table has " + std::to_string(s_.tids.size()) + " threads");
    }
    it = threads_.emplace(r.thread, Thread{tid, RegisterShadow(arch_)}).first;
    // Announce the thread before any effect names it, so the consumer
    // files it under the right process.
    sink_.thread_begin(tid, s_.pid);
  }
  last_row_ = r.thread;
  last_thread_ = &it->second;
  return last_thread_;
}

Status StepAssembler::check_control_flow(const ExecRecord& r, Thread& t) {
  if (!r.has_prev_next) return {};
  const int64_t eid = int64_t(r.eid);
  if (r.prev != t.last_eid)
    return make_error_at(s_.prev_next_path, r.eid * 16,
                         "record " + std::to_string(eid) + " says the previous record of its thread is " +
                             std::to_string(r.prev) + ", but it is " + std::to_string(t.last_eid));
  if (t.last_eid >= 0 && t.expected_next != eid)
    return make_error_at(s_.prev_next_path, uint64_t(t.last_eid) * 16 + 8,
                         "record " + std::to_string(t.last_eid) + " says the next record of its thread is " +
                             std::to_string(t.expected_next) + ", but it is " + std::to_string(eid));
  if (r.next != -1 && r.next <= eid)
    return make_error_at(s_.prev_next_path, r.eid * 16 + 8,
                         "record " + std::to_string(eid) + " names record " + std::to_string(r.next) +
                             " as the next of its thread, which is not later");
  t.expected_next = r.next;
  return {};
}

// Instrumentation was off before this record: every thread may have run
// code we did not see, and any memory may have changed. Invalidate once per
// gap: a thread that has not run since the last invalidation resumes from
// that same gap, and its first record after it carries the flag too.
void StepAssembler::gap(const ExecRecord& r, Thread& t) {
  if (t.last_eid != -1 && t.last_eid < last_gap_eid_) return;
  for (auto& [row, th] : threads_) th.regs.forget_all(sink_, th.tid);
  memory_.forget_all(sink_, s_.pid);
  last_gap_eid_ = int64_t(r.eid);
}

void StepAssembler::reliability_attrs(const ExecRecord& r) {
  if (r.flags & kFlagUnreliableMask) {
    sink_.attr("unreliable", AttrValue(uint64_t(1)));
    sink_.attr("unreliable_flags", AttrValue(uint64_t(r.flags & kFlagUnreliableMask)));
  }
}

Status StepAssembler::record(const ExecRecord& r) {
  auto got = thread(r);
  if (!got) return got.error();
  Thread& t = **got;
  if (auto s = check_control_flow(r, t); !s) return s;
  if (r.flags & kFlagInstrumentationWasOff) gap(r, t);

  Status s;
  const ExecType type = ExecType(r.type);
  switch (type) {
    case ExecType::Instruction: s = instruction(r, t); break;
    case ExecType::ThreadBegin: s = context_event(r, t, 0, StepKind::ThreadBegin); break;
    case ExecType::SyscallEntry:
    case ExecType::SyscallExit: {
      if (r.data_size < 8) return cut_short(r, 8, "system call");
      const int64_t id = load_le_i64(r.data);
      // An exit with no matching entry is, per the specification, a context change.
      const StepKind kind = (type == ExecType::SyscallExit && id == -1) ? StepKind::ContextChange : StepKind::Syscall;
      s = context_event(r, t, 8, kind);
      if (s) s = syscall_attrs(r, id, type == ExecType::SyscallEntry);
      break;
    }
    case ExecType::ContextApc:
    case ExecType::ContextException:
    case ExecType::ContextCallback:
    case ExecType::ContextUnknown:
      s = context_event(r, t, 0, StepKind::ContextChange);
      if (s) sink_.attr("reason", AttrValue(std::string(context_reason(r.type))));
      break;
    case ExecType::ThreadEnd:
    case ExecType::AppEnd: {
      if (r.data_size < 4) return cut_short(r, 4, type == ExecType::ThreadEnd ? "thread end" : "application end");
      const bool thread_end = type == ExecType::ThreadEnd;
      sink_.step(StepInfo{t.tid, s_.pid, t.regs.pc_known() ? t.regs.pc() : 0, 0,
                          thread_end ? StepKind::ThreadEnd : StepKind::Marker});
      if (!thread_end) sink_.attr("event", AttrValue(std::string("application end")));
      sink_.attr("exit_code", AttrValue(int64_t(load_le_i32(r.data))));
      reliability_attrs(r);
      if (thread_end) sink_.thread_end(t.tid);
      break;
    }
    case ExecType::SkippedSyscallExit: {
      if (r.data_size < 8) return cut_short(r, 8, "skipped system call exit");
      sink_.step(StepInfo{t.tid, s_.pid, t.regs.pc_known() ? t.regs.pc() : 0, 0, StepKind::Syscall});
      sink_.attr("event", AttrValue(std::string("skipped exit")));
      s = syscall_attrs(r, load_le_i64(r.data), false);
      reliability_attrs(r);
      break;
    }
    default:
      // Type 7 and anything newer: no layout is specified, so the record is
      // shown but its data is not interpreted.
      sink_.step(StepInfo{t.tid, s_.pid, t.regs.pc_known() ? t.regs.pc() : 0, 0, StepKind::Marker});
      sink_.attr("record_type", AttrValue(uint64_t(r.type)));
      reliability_attrs(r);
      break;
  }
  if (!s) return s;
  t.last_eid = int64_t(r.eid);
  return {};
}

Status StepAssembler::instruction(const ExecRecord& r, Thread& t) {
  if (r.data_size < 8) return cut_short(r, 8, "instruction");
  const int64_t ins_id = load_le_i64(r.data);
  if (ins_id < 0)
    return make_error_at(s_.vtable_path, r.data_offset(),
                         "record " + std::to_string(r.eid) + " names instruction " + std::to_string(ins_id));
  InstructionPlan* cached = s_.instructions->cached(uint64_t(ins_id));
  if (!cached) {
    auto planned = s_.instructions->plan(uint64_t(ins_id), *s_.regs, s_.elem_count);
    if (!planned) return planned.error();
    cached = *planned;
  }
  InstructionPlan& p = *cached;
  if (r.data_size - 8 < p.lc_size) return cut_short(r, 8 + uint64_t(p.lc_size), "instruction");
  const uint8_t* lc = r.data + 8;
  const Reliability ok = reliability(r.flags, s_.exec_version);
  const uint64_t tid = t.tid, pid = s_.pid;

  if (ok.inputs)
    for (const RegSlot& s : p.before) t.regs.write(sink_, tid, s.target, lc + s.lc_offset, s.size, false);
  // Code becomes known right before it first runs (the instruction table
  // has its bytes); it is not noted for gaps, which do not rewrite code
  // without the tracer instrumenting it anew under a new record.
  if (!p.code_emitted && p.code_size) {
    sink_.mem_write(pid, p.address, {p.code, p.code_size});
    p.code_emitted = true;
  }

  sink_.step(StepInfo{tid, pid, p.address, p.code_size, StepKind::Instruction});
  reliability_attrs(r);
  const bool executed = !(r.flags & kFlagNotExecuted);
  if (!executed) sink_.attr("not_executed", AttrValue(uint64_t(1)));
  t.regs.set_pc(p.address + p.code_size);

  for (const MemSlot& m : p.reads) {
    const uint64_t addr = load_le64(lc + m.lc_offset) & m.addr_mask;
    if (ok.inputs) {
      sink_.mem_read(pid, addr, m.size, {lc + m.lc_offset + 8, m.size});
      memory_.note(addr, m.size);
    } else {
      sink_.mem_read(pid, addr, m.size, {});
    }
  }
  if (!executed) return {};  // the condition was false: outputs equal inputs
  if (ok.outputs) {
    for (const RegSlot& s : p.after) t.regs.write(sink_, tid, s.target, lc + s.lc_offset, s.size, s.zero_extend);
    if (p.pc_after >= 0) {
      uint64_t next = 0;
      std::memcpy(&next, lc + p.pc_after, p.pc_size);
      t.regs.set_pc(next);
    }
    for (const MemSlot& m : p.writes) {
      const uint64_t addr = load_le64(lc + m.lc_offset) & m.addr_mask;
      sink_.mem_write(pid, addr, {lc + m.lc_offset + 8, m.size});
      memory_.note(addr, m.size);
    }
  } else {
    for (const RegSlot& s : p.after) t.regs.forget(sink_, tid, s.target.reg);
    for (const MemSlot& m : p.writes) sink_.mem_unknown(pid, load_le64(lc + m.lc_offset) & m.addr_mask, m.size);
  }
  return {};
}

Status StepAssembler::context_event(const ExecRecord& r, Thread& t, uint64_t context_at, StepKind kind) {
  const RegisterResolver& regs = *s_.regs;
  auto ctx = ContextView::parse(r, context_at, regs.dump_size(), s_.vtable_path);
  if (!ctx) return ctx.error();
  const bool mode64 = r.flags & kFlag64Bit;
  const Reliability ok = reliability(r.flags, s_.exec_version);
  const uint8_t* dump = ctx->registers();
  bool have_pc = false;
  uint64_t pc = 0;
  if (ok.inputs) {
    for (const DumpPiece& d : regs.dump_pieces(mode64)) {
      if (d.target.role == RegRole::ProgramCounter) {
        if (d.target.offset == 0 && d.size >= 4) {
          pc = d.size >= 8 ? load_le64(dump + d.dump_offset) : load_le32(dump + d.dump_offset);
          have_pc = true;
        }
        continue;
      }
      t.regs.write(sink_, t.tid, d.target, dump + d.dump_offset, d.size, d.zero_extend);
    }
    for (uint32_t i = 0; i < ctx->mem_count(); ++i) {
      const ContextMemRef m = ctx->mem(i);
      if (m.size == 0) continue;
      sink_.mem_write(s_.pid, m.address, {m.data, m.size});
      memory_.note(m.address, m.size);
    }
  }
  if (have_pc) t.regs.set_pc(pc);
  sink_.step(StepInfo{t.tid, s_.pid, t.regs.pc_known() ? t.regs.pc() : 0, 0, kind});
  reliability_attrs(r);
  return {};
}

Status StepAssembler::syscall_attrs(const ExecRecord& r, int64_t id, bool entry) {
  if (id == -1) return {};  // exit without an entry: nothing in the table
  if (!s_.syscalls)
    return make_error_at(s_.vtable_path, r.data_offset(),
                         "record " + std::to_string(r.eid) + " names system call " + std::to_string(id) +
                             ", but the trace has no system call table (syscall.vtable, syscall.offsets)");
  if (id < 0 || uint64_t(id) >= s_.syscalls->count())
    return make_error_at(s_.vtable_path, r.data_offset(),
                         "record " + std::to_string(r.eid) + " names system call " + std::to_string(id) +
                             ", but the table has " + std::to_string(s_.syscalls->count()));
  auto sc = s_.syscalls->get(uint64_t(id));
  if (!sc) return sc.error();
  sink_.attr("syscall", AttrValue(uint64_t(sc->uniform_id)));
  sink_.attr("syscall_raw", AttrValue(uint64_t(sc->raw_id)));
  sink_.attr("syscall_record", AttrValue(uint64_t(id)));
  if (entry) {
    sink_.attr("args", AttrValue(sc->args));
    sink_.attr("convention", AttrValue(uint64_t(sc->convention)));
  } else {
    sink_.attr("completed", AttrValue(uint64_t(sc->completed)));
    if (sc->completed) sink_.attr("result", AttrValue(sc->result));
  }
  return {};
}

Status StepAssembler::finish() {
  for (const auto& [row, t] : threads_)
    if (t.last_eid >= 0 && t.expected_next != -1)
      return make_error_at(s_.prev_next_path, uint64_t(t.last_eid) * 16 + 8,
                           "record " + std::to_string(t.last_eid) + " (the last of its thread) names record " +
                               std::to_string(t.expected_next) + " as the next");
  return {};
}

}  // namespace ttd::fmt::umtrace
