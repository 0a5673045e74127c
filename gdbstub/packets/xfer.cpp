// qXfer:<object>:read:<annex>:<offset>,<length> for target.xml, the thread
// list, the executable path and the auxiliary vector. Replies are "m<data>" (more follows) or
// "l<data>" (last), binary-escaped, never longer than the client asked nor
// than PacketSize allows.
#include "gdbstub/hex.h"
#include "gdbstub/packet_writer.h"
#include "gdbstub/packets/handlers.h"
#include "gdbstub/packets/stop_reply.h"

namespace ttd::gdb::packets {

namespace {

struct XferRequest {
  std::string_view annex;
  uint64_t offset = 0, length = 0;
};

std::optional<XferRequest> parse_xfer(std::string_view args) {
  size_t colon = args.rfind(':');
  if (colon == std::string_view::npos) return std::nullopt;
  auto range = parse_hex_pair(args.substr(colon + 1));
  if (!range) return std::nullopt;
  return XferRequest{args.substr(0, colon), range->first, range->second};
}

void reply_chunk(HandlerContext& ctx, const std::string& document, const XferRequest& req) {
  if (req.offset >= document.size()) return ctx.reply("l");
  // Escaping can double a byte, so half the packet budget is always safe.
  uint64_t budget = (ctx.state.packet_size - 2) / 2;
  uint64_t n = std::min<uint64_t>({req.length, budget, document.size() - req.offset});
  std::string reply(n < document.size() - req.offset ? "m" : "l");
  reply += escape_binary(std::string_view(document).substr(req.offset, n));
  ctx.reply(reply);
}

std::string xml_escape(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out.push_back(c);
    }
  }
  return out;
}

}  // namespace

void qxfer_features(HandlerContext& ctx, std::string_view args) {
  auto req = parse_xfer(args);
  if (!req) return ctx.error(ErrorCode::BadPacket, "malformed qXfer:features:read");
  if (req->annex != "target.xml") return ctx.error(ErrorCode::BadPacket, "unknown target description annex");
  reply_chunk(ctx, ctx.target.target_description(), *req);
}

void qxfer_threads(HandlerContext& ctx, std::string_view args) {
  auto req = parse_xfer(args);
  if (!req || !req->annex.empty()) return ctx.error(ErrorCode::BadPacket, "malformed qXfer:threads:read");
  std::string doc = "<?xml version=\"1.0\"?>\n<threads>\n";
  for (const auto& t : ctx.target.threads()) {
    doc += "<thread id=\"" + format_thread_id(t.pid, t.tid, ctx.state.client.multiprocess) + "\" core=\"0\"";
    if (!t.name.empty()) doc += " name=\"" + xml_escape(t.name) + "\"";
    doc += "/>\n";
  }
  doc += "</threads>\n";
  reply_chunk(ctx, doc, *req);
}

void qxfer_exec_file(HandlerContext& ctx, std::string_view args) {
  auto req = parse_xfer(args);
  if (!req) return ctx.error(ErrorCode::BadPacket, "malformed qXfer:exec-file:read");
  if (!req->annex.empty() && !parse_hex_u64(req->annex))
    return ctx.error(ErrorCode::BadPacket, "malformed process id in qXfer:exec-file:read");
  auto path = ctx.target.exec_file();
  if (!path) return ctx.error(ErrorCode::Unsupported, "the trace does not name its executable");
  reply_chunk(ctx, *path, *req);
}

void qxfer_auxv(HandlerContext& ctx, std::string_view args) {
  auto req = parse_xfer(args);
  if (!req || !req->annex.empty()) return ctx.error(ErrorCode::BadPacket, "malformed qXfer:auxv:read");
  auto auxv = ctx.target.auxv();
  if (!auxv) return ctx.unsupported();
  reply_chunk(ctx, *auxv, *req);
}

}  // namespace ttd::gdb::packets
