#include "formats/xray/step_emitter.h"

namespace ttd::fmt::xray {

std::string payload_text(const std::vector<uint8_t>& bytes) {
  bool printable = true;
  for (uint8_t b : bytes)
    if (b < 0x20 || b > 0x7e) {
      printable = false;
      break;
    }
  if (printable) return std::string(bytes.begin(), bytes.end());
  static const char* digits = "0123456789abcdef";
  std::string s = "hex:";
  s.reserve(4 + 2 * bytes.size());
  for (uint8_t b : bytes) {
    s += digits[b >> 4];
    s += digits[b & 15];
  }
  return s;
}

StepEmitter::StepEmitter(TraceSink& sink, const InstrMap* map)
    : sink_(sink),
      map_(map),
      keys_{sink.attr_key("function"), sink.attr_key("tsc"), sink.attr_key("cpu"), sink.attr_key("pid")} {}

Status StepEmitter::on_event(const XrayEvent& e) {
  StepInfo s;
  s.tid = e.tid;
  s.pid = e.pid;
  s.size = 0;
  std::optional<uint32_t> func;
  // By EventKind: Enter, EnterArgs, Exit, TailExit, Custom, Typed.
  static constexpr StepKind kStepKind[] = {StepKind::FunctionEnter, StepKind::FunctionEnter,
                                           StepKind::FunctionExit,  StepKind::FunctionTailExit,
                                           StepKind::CustomEvent,   StepKind::TypedEvent};
  static_assert(size_t(EventKind::Typed) == 5);
  s.kind = kStepKind[size_t(e.kind)];
  std::vector<uint32_t>& open = open_calls(e.tid);
  if (is_function_event(e.kind)) {
    func = e.func_id;
  } else if (!open.empty()) {
    func = open.back();  // the event fired inside this call
  }
  s.pc = func ? pc_of(*func) : 0;
  sink_.step(s);
  ++steps_;
  const uint64_t values[4] = {func.value_or(0), e.tsc, e.cpu, e.pid};
  if (func)
    sink_.attr_u64s(keys_, values, 4);
  else
    sink_.attr_u64s(keys_ + 1, values + 1, 3);
  if (e.kind == EventKind::EnterArgs) sink_.attr("args", e.args);
  if (func && map_) {
    const std::string& name = map_->function_name(*func);
    if (!name.empty()) sink_.attr("symbol", name);
  }
  if (!is_function_event(e.kind)) {
    sink_.attr("event", payload_text(e.payload));
    if (e.kind == EventKind::Typed) sink_.attr("event_type", uint64_t(e.event_type));
  }
  if (is_entry(e.kind)) {
    open.push_back(e.func_id);
  } else if (is_function_event(e.kind)) {
    size_t i = open.size();
    while (i > 0 && open[i - 1] != e.func_id) --i;
    if (i > 0) open.resize(i - 1);
  }
  return {};
}

}  // namespace ttd::fmt::xray
