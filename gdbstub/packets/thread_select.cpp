#include "gdbstub/packets/thread_select.h"

namespace ttd::gdb::packets {

bool is_thread_alive(const HandlerContext& ctx, uint64_t tid) {
  for (const auto& t : ctx.target.threads())
    if (t.tid == tid) return true;
  return false;
}

uint64_t default_thread(const HandlerContext& ctx) {
  const auto& stop = ctx.state.last_stop;
  if (stop && stop->kind != StopReplyKind::Exited && is_thread_alive(ctx, stop->tid)) return stop->tid;
  return ctx.target.current_thread();
}

std::optional<uint64_t> resolve_thread(const HandlerContext& ctx, IdSel sel) {
  if (!sel.is_specific()) return default_thread(ctx);
  if (!is_thread_alive(ctx, sel.value)) return std::nullopt;
  return sel.value;
}

SuffixSplit split_thread_suffix(std::string_view args) {
  SuffixSplit out{args, std::nullopt, false};
  constexpr std::string_view kKey = ";thread:";
  size_t at = args.find(kKey);
  if (at == std::string_view::npos) return out;
  out.body = args.substr(0, at);
  std::string_view id = args.substr(at + kKey.size());
  if (!id.empty() && id.back() == ';') id.remove_suffix(1);
  auto sel = parse_thread_sel(id);
  if (!sel) out.malformed = true;
  else out.thread = sel->tid;
  return out;
}

std::optional<uint64_t> thread_for_state_access(HandlerContext& ctx, const SuffixSplit& split) {
  if (split.malformed) {
    ctx.error(ErrorCode::BadPacket, "malformed ;thread: suffix");
    return std::nullopt;
  }
  IdSel sel = split.thread ? *split.thread : ctx.state.g_thread;
  auto tid = resolve_thread(ctx, sel);
  if (!tid) ctx.error(ErrorCode::UnknownThread, "no such thread at this position");
  return tid;
}

}  // namespace ttd::gdb::packets
