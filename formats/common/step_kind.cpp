#include "formats/common/trace_sink.h"

namespace ttd::fmt {

std::string_view step_kind_name(StepKind k) {
  switch (k) {
    case StepKind::Instruction: return "instruction";
    case StepKind::Syscall: return "syscall";
    case StepKind::ThreadBegin: return "thread-begin";
    case StepKind::ThreadEnd: return "thread-end";
    case StepKind::ContextChange: return "context-change";
    case StepKind::Interrupt: return "interrupt";
    case StepKind::FunctionEnter: return "enter";
    case StepKind::FunctionExit: return "exit";
    case StepKind::FunctionTailExit: return "tail-exit";
    case StepKind::CustomEvent: return "custom-event";
    case StepKind::TypedEvent: return "typed-event";
    case StepKind::Marker: return "marker";
  }
  return "unknown";
}

}  // namespace ttd::fmt
