// continue, next, stepIn, stepOut, stepBack, reverseContinue, pause, cancel.
// Each answers at once and then runs; the stopped event tells the result.
#include "dap/handlers/handler_args.h"
#include "dap/stop_report.h"

namespace ttd::dap {

namespace {

// VS Code sends stepBack (and often next) without a granularity: that
// means a source line where there is one (an instruction step would drop
// the user into disassembly).
Result<Granularity> granularity_arg(const json& args) {
  auto g = opt_string(args, "granularity");
  if (!g) return g.error();
  std::string v = g->value_or("line");
  if (v == "line" || v == "statement") return Granularity::Line;
  if (v == "instruction") return Granularity::Instruction;
  return make_error("arguments.granularity", "must be \"statement\", \"line\" or \"instruction\"");
}

HandlerFn mover(Motion motion, Direction direction, bool stepping) {
  return [=](RequestContext& c) -> Result<json> {
    auto tid = thread_arg(c, false);
    if (!tid) return tid.error();
    Granularity g = Granularity::Instruction;
    if (stepping) {
      auto gr = granularity_arg(c.args);
      if (!gr) return gr.error();
      g = *gr;
    }
    uint64_t t = *tid;
    c.after_response = [&c, motion, direction, g, t] { resume_and_report(c.state, c.out, motion, direction, g, t); };
    if (motion == Motion::Continue) return json{{"allThreadsContinued", true}};
    return json(nullptr);
  };
}

Result<json> pause(RequestContext& c) {
  // The reader raised the interrupt flag when this request arrived; a run
  // in progress has already stopped on it. Clear it for the next run.
  c.state.interrupt = false;
  return json(nullptr);
}

// cancel: the reader raised the interrupt flag when this arrived, which
// stops a run in progress (the run's stopped event says "pause"); other
// requests are answered in order and quickly, so there is nothing else to
// cancel by the time this is handled.
Result<json> cancel(RequestContext& c) {
  c.state.interrupt = false;
  return json(nullptr);
}

}  // namespace

void register_execution_handlers(Dispatcher& d) {
  d.add("continue", Needs::Launched, mover(Motion::Continue, Direction::Forward, false));
  d.add("reverseContinue", Needs::Launched, mover(Motion::Continue, Direction::Backward, false));
  d.add("next", Needs::Launched, mover(Motion::StepOver, Direction::Forward, true));
  d.add("stepIn", Needs::Launched, mover(Motion::StepIn, Direction::Forward, true));
  d.add("stepOut", Needs::Launched, mover(Motion::StepOut, Direction::Forward, true));
  d.add("stepBack", Needs::Launched, mover(Motion::StepOver, Direction::Backward, true));
  d.add("pause", Needs::Launched, pause);
  d.add("cancel", Needs::Nothing, cancel);
}

}  // namespace ttd::dap
