// One expanded XRay event: a function entry/exit or a custom/typed event
// with its absolute TSC, thread, process and CPU resolved. FDR logs get
// here through the trace expander, basic logs directly. Every event becomes
// one step; `eid` is its position in file order.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "state/error.h"

namespace ttd::fmt::xray {

enum class EventKind : uint8_t { Enter, EnterArgs, Exit, TailExit, Custom, Typed };

inline bool is_function_event(EventKind k) { return k <= EventKind::TailExit; }
inline bool is_entry(EventKind k) { return k == EventKind::Enter || k == EventKind::EnterArgs; }

struct XrayEvent {
  EventKind kind = EventKind::Enter;
  uint64_t eid = 0;
  uint64_t offset = 0;   // file offset of the record that started the event
  uint32_t func_id = 0;  // function events only
  uint64_t tsc = 0;
  uint16_t cpu = 0;
  uint64_t tid = 0;
  uint64_t pid = 0;              // 0 when the log has no process ids (FDR v1)
  uint16_t event_type = 0;       // typed events
  std::vector<uint64_t> args;    // EnterArgs
  std::vector<uint8_t> payload;  // Custom / Typed
};

// The consumer side of the expanded stream (step emitter, call stack
// tracker, test collectors). `on_gap` tells that records of `tid` were lost
// between the previous event and the next (a skipped region); `tid` is 0
// when the thread is unknown.
class EventConsumer {
 public:
  virtual ~EventConsumer() = default;
  virtual Status on_event(const XrayEvent& e) = 0;
  virtual void on_gap(uint64_t tid, uint64_t offset) {}
};

}  // namespace ttd::fmt::xray
