// qRcmd,<hex command>: gdb's `monitor`, lldb's `process plugin packet
// monitor`. Output goes out as O<hex> packets while the command runs (at
// most kChunk text bytes are held back), then OK; gdb and lldb accept any
// number of O packets before the final reply. Ctrl-C or a vanished client
// stops a long command: the target sees its output refused and its
// interrupt check fire, and the client gets "interrupted" before the OK.
//
// The stub itself answers `reverse on|off` (direction switch: ordinary
// continue / step run backwards, for lldb < 21 which has no reverse
// packets) and adds its lines to `help`; everything else goes to the
// target. A failing command still ends in OK with its error text shown:
// gdb 13 turns an E reply to qRcmd into "Protocol error with Rcmd", which
// hides the message.
#include "gdbstub/hex.h"
#include "gdbstub/packets/handlers.h"

namespace ttd::gdb::packets {

namespace {

constexpr size_t kChunk = 1024;  // text bytes per O packet

void send_output(HandlerContext& ctx, std::string_view text) {
  for (size_t at = 0; at < text.size(); at += kChunk)
    ctx.reply("O" + encode_hex_text(text.substr(at, kChunk)));
}

// Gathers streamed output into O packets of kChunk bytes, and latches a
// stop: once the interrupt check fired, nothing more is accepted.
class OutputStream {
 public:
  explicit OutputStream(HandlerContext& ctx) : ctx_(ctx) {}
  bool write(std::string_view text) {
    if (stopped()) return false;
    pending_ += text;
    while (pending_.size() >= kChunk) {
      send_output(ctx_, std::string_view(pending_).substr(0, kChunk));
      pending_.erase(0, kChunk);
    }
    return !stopped();
  }
  bool stopped() {
    if (!stopped_ && ctx_.interrupted && ctx_.interrupted()) stopped_ = true;
    return stopped_;
  }
  bool was_stopped() const { return stopped_; }
  void flush() {
    send_output(ctx_, pending_);
    pending_.clear();
  }

 private:
  HandlerContext& ctx_;
  std::string pending_;
  bool stopped_ = false;
};

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n')) s.remove_suffix(1);
  return s;
}

constexpr std::string_view kReverseHelp =
    "reverse [on|off]   make continue and step run backwards (for debuggers without reverse commands)\n";

std::string reverse_command(HandlerContext& ctx, std::string_view arg) {
  if (arg == "on") ctx.state.reverse_mode = true;
  else if (arg == "off") ctx.state.reverse_mode = false;
  else if (!arg.empty()) return "error: reverse takes on or off\n";
  const std::string now = std::string("direction: ") + (ctx.state.reverse_mode ? "reverse" : "forward");
  // A bare "monitor reverse" only asks; say how to change it, since users
  // type it expecting a switch.
  if (arg.empty()) return now + " (monitor reverse " + (ctx.state.reverse_mode ? "off" : "on") + " to change)\n";
  return now + "\n";
}

}  // namespace

void q_rcmd(HandlerContext& ctx, std::string_view args) {
  auto text = decode_hex_text(args);
  if (!text) return ctx.error(ErrorCode::BadPacket, "qRcmd takes a hex-encoded command");
  std::string_view command = trim(*text);
  std::string_view verb = command.substr(0, command.find(' '));
  std::string_view rest = verb.size() < command.size() ? trim(command.substr(verb.size())) : std::string_view{};
  TargetCaps caps = ctx.target.capabilities();

  if (verb == "reverse" && caps.reverse) {
    send_output(ctx, reverse_command(ctx, rest));
    return ctx.ok();
  }
  if (verb == "help" || command.empty()) {
    std::string help = caps.monitor ? ctx.target.monitor_help() : std::string();
    if (caps.reverse) help += kReverseHelp;
    if (help.empty()) return ctx.unsupported();
    send_output(ctx, help);
    return ctx.ok();
  }
  if (!caps.monitor) return ctx.unsupported();
  OutputStream stream(ctx);
  MonitorReply reply = ctx.target.monitor(
      command, [&](std::string_view text) { return stream.write(text); }, [&] { return stream.stopped(); });
  std::string output = std::move(reply.output);
  if (!reply.ok && !output.starts_with("error")) output = "error: " + output;
  stream.flush();
  // A command that just stopped streaming says nothing more; say why.
  if (stream.was_stopped() && output.empty()) output = "interrupted\n";
  send_output(ctx, output);
  ctx.ok();
}

}  // namespace ttd::gdb::packets
