// vCont?, vCont, c/C, s/S, bc, bs. Every resume runs synchronously: the
// target moves (polling ctx.interrupted for Ctrl-C) and the stop reply is
// sent when it returns. Signals in C/S/vCont actions are accepted and
// ignored: a replay cannot deliver a signal the recording did not have.
// A resume address ("c addr") is ignored for the same reason.
// Spec: the GDB manual, "Packets" (vCont, c, s, bc, bs) and "Reverse
// Execution" (what reverse-continue and reverse-stepi mean to the user).
#include <vector>

#include "gdbstub/hex.h"
#include "gdbstub/packets/handlers.h"
#include "gdbstub/packets/stop_reply.h"
#include "gdbstub/packets/thread_select.h"

namespace ttd::gdb::packets {

namespace {

// "monitor reverse on" turns ordinary continue / step into their reverse
// forms, for clients without bc / bs.
Direction ordinary_direction(const HandlerContext& ctx) {
  return ctx.state.reverse_mode ? Direction::Backward : Direction::Forward;
}

void run(HandlerContext& ctx, Direction direction, ResumeAction action, uint64_t tid) {
  ResumeRequest request;
  request.direction = direction;
  request.action = action;
  request.tid = tid;
  request.breakpoints = ctx.state.breakpoints;
  request.watchpoints = ctx.state.watchpoints;
  auto stop = ctx.target.resume(request, ctx.interrupted);
  if (!stop) {
    ctx.error(ErrorCode::TargetFailed, stop.error().to_string());
    return;
  }
  note_stop(ctx.state, *stop, direction);
  ctx.reply(format_stop_reply(ctx, *stop));
}

// The thread Hc selected (or the default one); E02 if it is gone.
std::optional<uint64_t> resume_thread(HandlerContext& ctx) {
  auto tid = resolve_thread(ctx, ctx.state.c_thread);
  if (!tid) ctx.error(ErrorCode::UnknownThread, "the selected thread is not alive here");
  return tid;
}

// Optional "sig" (C/S, 2 hex digits) and ";addr" / "addr" tail: validated,
// then ignored (see the file comment).
bool valid_legacy_args(std::string_view args, bool has_signal) {
  if (has_signal) {
    size_t semi = args.find(';');
    if (!parse_hex_u64(args.substr(0, semi))) return false;
    if (semi == std::string_view::npos) return true;
    args = args.substr(semi + 1);
  }
  return args.empty() || parse_hex_u64(args).has_value();
}

struct VContAction {
  char kind = 0;  // c, s, t or r (C/S folded into c/s)
  std::optional<ThreadSel> thread;
};

std::optional<std::vector<VContAction>> parse_vcont(std::string_view args) {
  std::vector<VContAction> actions;
  while (true) {
    size_t semi = args.find(';');
    std::string_view item = args.substr(0, semi);
    if (item.empty()) return std::nullopt;
    VContAction a;
    size_t colon = item.find(':');
    std::string_view verb = item.substr(0, colon);
    if (colon != std::string_view::npos) {
      a.thread = parse_thread_sel(item.substr(colon + 1));
      if (!a.thread) return std::nullopt;
    }
    if (verb.empty()) return std::nullopt;
    char k = verb[0];
    std::string_view rest = verb.substr(1);
    if ((k == 'c' || k == 's' || k == 't') && rest.empty()) {
      a.kind = k;
    } else if ((k == 'C' || k == 'S') && parse_hex_u64(rest)) {
      a.kind = char(k - 'A' + 'a');
    } else if (k == 'r' && parse_hex_pair(rest)) {
      a.kind = 'r';
    } else {
      return std::nullopt;
    }
    actions.push_back(a);
    if (semi == std::string_view::npos) break;
    args = args.substr(semi + 1);
  }
  return actions;
}

}  // namespace

void v_cont_query(HandlerContext& ctx, std::string_view) { ctx.reply("vCont;c;C;s;S"); }

void v_cont(HandlerContext& ctx, std::string_view args) {
  auto actions = parse_vcont(args);
  if (!actions) return ctx.error(ErrorCode::BadPacket, "malformed vCont");
  // A replay moves all threads together, so one action decides: the first
  // step (for its thread, or the Hc thread when it names none), else
  // continue. Stop ('t') and range step ('r') are not offered by vCont?.
  const VContAction* step = nullptr;
  bool any_continue = false;
  for (const auto& a : *actions) {
    if (a.kind == 's' && !step) step = &a;
    if (a.kind == 'c') any_continue = true;
  }
  if (step) {
    std::optional<uint64_t> tid;
    if (step->thread && step->thread->tid.is_specific()) tid = resolve_thread(ctx, step->thread->tid);
    else tid = resolve_thread(ctx, ctx.state.c_thread);
    if (!tid) return ctx.error(ErrorCode::UnknownThread, "cannot step a thread that is not alive here");
    return run(ctx, ordinary_direction(ctx), ResumeAction::Step, *tid);
  }
  if (!any_continue) return ctx.error(ErrorCode::Unsupported, "only c, C, s and S vCont actions are supported");
  run(ctx, ordinary_direction(ctx), ResumeAction::Continue, default_thread(ctx));
}

void continue_legacy(HandlerContext& ctx, std::string_view args) {
  if (!valid_legacy_args(args, false)) return ctx.error(ErrorCode::BadPacket, "malformed c packet");
  auto tid = resume_thread(ctx);
  if (!tid) return;
  run(ctx, ordinary_direction(ctx), ResumeAction::Continue, *tid);
}

void continue_with_signal(HandlerContext& ctx, std::string_view args) {
  if (!valid_legacy_args(args, true)) return ctx.error(ErrorCode::BadPacket, "malformed C packet");
  continue_legacy(ctx, {});
}

void step_legacy(HandlerContext& ctx, std::string_view args) {
  if (!valid_legacy_args(args, false)) return ctx.error(ErrorCode::BadPacket, "malformed s packet");
  auto tid = resume_thread(ctx);
  if (!tid) return;
  run(ctx, ordinary_direction(ctx), ResumeAction::Step, *tid);
}

void step_with_signal(HandlerContext& ctx, std::string_view args) {
  if (!valid_legacy_args(args, true)) return ctx.error(ErrorCode::BadPacket, "malformed S packet");
  step_legacy(ctx, {});
}

void reverse_continue(HandlerContext& ctx, std::string_view) {
  if (!ctx.target.capabilities().reverse) return ctx.unsupported();
  auto tid = resume_thread(ctx);
  if (!tid) return;
  run(ctx, Direction::Backward, ResumeAction::Continue, *tid);
}

void reverse_step(HandlerContext& ctx, std::string_view) {
  if (!ctx.target.capabilities().reverse) return ctx.unsupported();
  // gdb sends Hc0 ("any") before bs: step the last reported thread.
  auto tid = resume_thread(ctx);
  if (!tid) return;
  run(ctx, Direction::Backward, ResumeAction::Step, *tid);
}

}  // namespace ttd::gdb::packets
