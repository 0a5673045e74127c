// Feature negotiation: qSupported (derived from the target's capabilities),
// no-ack mode and lldb's opt-in extensions.
// Spec: the GDB manual, "General Query Packets" (qSupported, QStartNoAckMode).
#include "gdbstub/hex.h"
#include "gdbstub/packets/handlers.h"

namespace ttd::gdb::packets {

void q_supported(HandlerContext& ctx, std::string_view args) {
  // args: ":feature;feature;..." (or empty). Only what changes our replies
  // is remembered.
  if (!args.empty() && args.front() == ':') args.remove_prefix(1);
  ClientFeatures& client = ctx.state.client;
  bool client_multiprocess = false, client_error_message = false;
  while (!args.empty()) {
    size_t semi = args.find(';');
    std::string_view f = args.substr(0, semi);
    if (f == "multiprocess+") client_multiprocess = true;
    else if (f == "swbreak+") client.swbreak = true;
    else if (f == "hwbreak+") client.hwbreak = true;
    else if (f == "error-message+") client_error_message = true;
    if (semi == std::string_view::npos) break;
    args.remove_prefix(semi + 1);
  }
  client.multiprocess = client_multiprocess;
  client.error_message = client_error_message;

  TargetCaps caps = ctx.target.capabilities();
  std::string reply = "PacketSize=" + hex_number(ctx.state.packet_size);
  reply += ";QStartNoAckMode+;qXfer:features:read+;qXfer:threads:read+";
  if (ctx.target.exec_file()) reply += ";qXfer:exec-file:read+";
  if (ctx.target.auxv()) reply += ";qXfer:auxv:read+";
  reply += ";multiprocess+;swbreak+";
  if (caps.hw_breakpoints) reply += ";hwbreak+";
  reply += ";vContSupported+";
  if (caps.reverse) reply += ";ReverseContinue+;ReverseStep+";
  if (client_error_message) reply += ";error-message+";
  // Never binary-upload+: gdb >= 16 would then send 'x' expecting a 'b'
  // prefix, while lldb < 21 probes a prefix-less 'x' (see memory.cpp).
  ctx.reply(reply);
}

void v_must_reply_empty(HandlerContext& ctx, std::string_view) { ctx.unsupported(); }

void q_start_no_ack_mode(HandlerContext& ctx, std::string_view) {
  // The session acked this packet before dispatching it; our OK is still
  // sent in ack mode, and from the next packet on nobody acks.
  ctx.ok();
  ctx.state.no_ack = true;
}

void q_thread_suffix_supported(HandlerContext& ctx, std::string_view) {
  ctx.state.client.thread_suffix = true;
  ctx.ok();
}

void q_list_threads_in_stop_reply(HandlerContext& ctx, std::string_view) {
  ctx.state.client.threads_in_stop_reply = true;
  ctx.ok();
}

void q_enable_error_strings(HandlerContext& ctx, std::string_view) {
  ctx.state.client.error_strings = true;
  ctx.ok();
}

void q_non_stop(HandlerContext& ctx, std::string_view args) {
  if (args == "0") return ctx.ok();
  ctx.error(ErrorCode::Unsupported, "non-stop mode is not supported; use all-stop");
}

}  // namespace ttd::gdb::packets
