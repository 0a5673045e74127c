// '?' (why did we stop) and lldb's qThreadStopInfo<tid>.
#include "gdbstub/hex.h"
#include "gdbstub/packets/handlers.h"
#include "gdbstub/packets/stop_reply.h"
#include "gdbstub/packets/thread_select.h"

namespace ttd::gdb::packets {

void stop_status(HandlerContext& ctx, std::string_view) {
  // Before any resume the trace sits at its start position: report the
  // current thread as stopped there (stop_reply.cpp, signal_of).
  if (!ctx.state.last_stop) {
    StopReason initial{StopReplyKind::Attached, ctx.target.current_thread()};
    note_stop(ctx.state, initial, Direction::Forward);
  }
  ctx.reply(format_stop_reply(ctx, *ctx.state.last_stop));
}

void q_thread_stop_info(HandlerContext& ctx, std::string_view args) {
  auto sel = parse_thread_sel(args);
  if (!sel) return ctx.error(ErrorCode::BadPacket, "malformed thread id");
  auto tid = resolve_thread(ctx, sel->tid);
  if (!tid) return ctx.error(ErrorCode::UnknownThread, "no such thread at this position");
  const auto& last = ctx.state.last_stop;
  if (last && last->tid == *tid && last->kind != StopReplyKind::Exited) return ctx.reply(format_stop_reply(ctx, *last));
  if (!last && *tid == ctx.target.current_thread())
    return ctx.reply(format_stop_reply(ctx, StopReason{StopReplyKind::Attached, *tid}));
  ctx.reply(format_no_reason_reply(ctx, *tid));
}

}  // namespace ttd::gdb::packets
