#include "formats/xray/fdr_expander.h"

namespace ttd::fmt::xray {

bool FdrExpander::emit() {
  ev_.eid = next_eid_++;
  Status s = out_.on_event(ev_);
  if (s) return true;
  error_ = s.error();
  return false;
}

Status FdrExpander::flush() {
  if (emit_pending()) return {};
  return error_;
}

void FdrExpander::switch_thread(uint64_t tid) {
  if (have_thread_) saved_[tid_] = cur_;
  auto it = saved_.find(tid);
  cur_ = it != saved_.end() ? it->second : ThreadClock{};
  tid_ = tid;
  have_thread_ = true;
}

bool FdrExpander::start_event(EventKind k, const FdrRecord& r) {
  if (!have_thread_) {
    error_ = make_error_at(where_, r.offset, "record before the buffer's NewBuffer record: its thread is unknown");
    return false;
  }
  ev_.kind = k;
  ev_.offset = r.offset;
  ev_.tid = tid_;
  ev_.pid = cur_.pid;
  ev_.cpu = cur_.cpu;
  ev_.args.clear();
  ev_.payload.clear();
  ev_.event_type = 0;
  return true;
}

bool FdrExpander::accept(const FdrRecord& r) {
  switch (r.kind) {
    case RecordKind::Function: {
      if (!emit_pending()) return false;
      static constexpr EventKind kinds[] = {EventKind::Enter, EventKind::Exit, EventKind::TailExit,
                                            EventKind::EnterArgs};
      if (!start_event(kinds[uint8_t(r.action)], r)) return false;
      cur_.base_tsc += r.delta;
      ev_.tsc = cur_.base_tsc;
      ev_.func_id = r.func_id;
      // Entries wait for the CallArgument records that may follow them.
      if (is_entry(ev_.kind)) {
        pending_ = true;
        return true;
      }
      return emit();
    }
    case RecordKind::CallArgument:
      if (pending_ && is_entry(ev_.kind)) {
        ev_.args.push_back(r.value);
        ev_.kind = EventKind::EnterArgs;
      } else {
        ++orphan_args_;  // LLVM would glue it onto whatever came before; it means nothing there
      }
      return true;
    case RecordKind::CustomEvent:
    case RecordKind::TypedEvent: {
      if (!emit_pending()) return false;
      bool typed = r.kind == RecordKind::TypedEvent;
      if (!start_event(typed ? EventKind::Typed : EventKind::Custom, r)) return false;
      if (typed || version_ >= 5) {
        // Version 5 events are delta-encoded like function records.
        cur_.base_tsc += uint64_t(int64_t(r.event_delta));
        ev_.tsc = cur_.base_tsc;
      } else {
        // Versions 1-4 carry an absolute TSC that does not move the base.
        ev_.tsc = r.value;
        if (version_ >= 4) ev_.cpu = r.cpu;
      }
      ev_.event_type = r.event_type;
      ev_.func_id = 0;
      ev_.payload.assign(r.payload.begin(), r.payload.end());
      return emit();
    }
    // Clock and process records only change state: a held-back entry keeps
    // the values it was read with, and arguments after them still attach
    // (as in LLVM).
    case RecordKind::NewCpu:
      cur_.cpu = r.cpu;
      cur_.base_tsc = r.value;
      return true;
    case RecordKind::TscWrap:
      cur_.base_tsc = r.value;
      return true;
    case RecordKind::Pid:
      cur_.pid = uint64_t(uint32_t(r.id));
      return true;
    case RecordKind::WallTime:
      return true;
    case RecordKind::NewBuffer:
      if (!emit_pending()) return false;
      switch_thread(uint64_t(uint32_t(r.id)));
      // Version 2 has no Pid record; LLVM reports the thread id as the
      // process id there. Version 1 has no process at all.
      if (version_ == 2) cur_.pid = tid_;
      if (version_ == 1) cur_.pid = 0;
      return true;
    case RecordKind::BufferExtents:
    case RecordKind::EndOfBuffer:
      if (!emit_pending()) return false;
      if (have_thread_) saved_[tid_] = cur_;
      have_thread_ = false;  // each buffer names its thread again
      return true;
    case RecordKind::Skipped:
      if (!emit_pending()) return false;
      out_.on_gap(have_thread_ ? tid_ : 0, r.offset);
      return true;
  }
  return true;
}

}  // namespace ttd::fmt::xray
