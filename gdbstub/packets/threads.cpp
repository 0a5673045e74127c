// Thread selection and listing: H, T, qC, qfThreadInfo / qsThreadInfo,
// qThreadExtraInfo.
#include "gdbstub/hex.h"
#include "gdbstub/packets/handlers.h"
#include "gdbstub/packets/stop_reply.h"
#include "gdbstub/packets/thread_select.h"

namespace ttd::gdb::packets {

void set_thread(HandlerContext& ctx, std::string_view args) {
  if (args.empty() || (args[0] != 'g' && args[0] != 'c'))
    return ctx.error(ErrorCode::BadPacket, "H takes g or c");
  auto sel = parse_thread_sel(args.substr(1));
  if (!sel) return ctx.error(ErrorCode::BadPacket, "malformed thread id");
  if (sel->tid.is_specific() && !is_thread_alive(ctx, sel->tid.value))
    return ctx.error(ErrorCode::UnknownThread, "no such thread at this position");
  (args[0] == 'g' ? ctx.state.g_thread : ctx.state.c_thread) = sel->tid;
  ctx.ok();
}

void thread_alive(HandlerContext& ctx, std::string_view args) {
  auto sel = parse_thread_sel(args);
  if (!sel) return ctx.error(ErrorCode::BadPacket, "malformed thread id");
  bool alive = sel->tid.is_specific() ? is_thread_alive(ctx, sel->tid.value) : !ctx.target.threads().empty();
  if (alive) return ctx.ok();
  ctx.error(ErrorCode::UnknownThread, "thread is not alive at this position");
}

void q_current_thread(HandlerContext& ctx, std::string_view) {
  uint64_t tid = default_thread(ctx);
  ctx.reply("QC" + format_thread_id(pid_of(ctx, tid), tid, ctx.state.client.multiprocess));
}

void q_first_thread_info(HandlerContext& ctx, std::string_view) {
  // Everything fits in one reply; qsThreadInfo then ends the list.
  std::string out;
  for (const auto& t : ctx.target.threads()) {
    out += out.empty() ? "m" : ",";
    out += format_thread_id(t.pid, t.tid, ctx.state.client.multiprocess);
  }
  ctx.reply(out.empty() ? "l" : out);
}

void q_next_thread_info(HandlerContext& ctx, std::string_view) { ctx.reply("l"); }

void q_thread_extra_info(HandlerContext& ctx, std::string_view args) {
  auto sel = parse_thread_sel(args);
  if (!sel || !sel->tid.is_specific()) return ctx.error(ErrorCode::BadPacket, "malformed thread id");
  if (!is_thread_alive(ctx, sel->tid.value)) return ctx.error(ErrorCode::UnknownThread, "no such thread");
  ctx.reply(encode_hex_text(ctx.target.thread_extra_info(sel->tid.value)));
}

}  // namespace ttd::gdb::packets
