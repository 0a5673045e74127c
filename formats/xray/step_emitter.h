// Turns expanded XRay events into the common step stream: one step per
// event, in file order, so the EID of an event is its position in the file.
//
//   kind   FunctionEnter (entry, entry with args), FunctionExit,
//          FunctionTailExit, CustomEvent, TypedEvent
//   tid    thread id; pid process id (0 when the log has none)
//   pc     the function's address when an instrumentation map is loaded,
//          else the function id; events use the innermost open call
//   attrs  function, tsc, cpu, thread, pid, args (entries with args),
//          symbol (with a map), event + event_type (events)
//
// No register or memory effects: an XRay trace has neither.
#pragma once
#include <string>
#include <unordered_map>
#include <vector>

#include "formats/common/trace_sink.h"
#include "formats/xray/instr_map.h"
#include "formats/xray/xray_event.h"

namespace ttd::fmt::xray {

// Event payloads as attribute text: the bytes themselves when they are
// printable ASCII, else "hex:" and two lowercase hex digits per byte.
std::string payload_text(const std::vector<uint8_t>& bytes);

class StepEmitter : public EventConsumer {
 public:
  // Call after sink.begin(): the attribute keys are named to the sink here.
  StepEmitter(TraceSink& sink, const InstrMap* map);
  Status on_event(const XrayEvent& e) override;
  uint64_t steps() const { return steps_; }

 private:
  // Inline: both run for every event.
  uint64_t pc_of(uint32_t func_id) const {
    if (map_)
      if (auto a = map_->function_address(func_id)) return *a;
    return func_id;
  }
  std::vector<uint32_t>& open_calls(uint64_t tid) {
    if (tid != last_tid_ || !last_) {
      last_ = &open_[tid];  // nodes of an unordered_map never move
      last_tid_ = tid;
    }
    return *last_;
  }

  TraceSink& sink_;
  const InstrMap* map_;
  // The unsigned attributes every step carries: function (when known),
  // tsc, cpu, pid.
  TraceSink::AttrKey keys_[4];
  // Open function ids per thread, for the function an event happens in
  // (matched like CallStackTracker does, without its bookkeeping).
  std::unordered_map<uint64_t, std::vector<uint32_t>> open_;
  uint64_t last_tid_ = ~0ull;
  std::vector<uint32_t>* last_ = nullptr;
  uint64_t steps_ = 0;
};

}  // namespace ttd::fmt::xray
