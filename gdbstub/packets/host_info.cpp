// Static facts about the debuggee: lldb's qHostInfo / qProcessInfo /
// qWatchpointSupportInfo, gdb's qAttached / qSymbol, and qOffsets.
#include "gdbstub/hex.h"
#include "gdbstub/packets/handlers.h"

namespace ttd::gdb::packets {

namespace {

// triple is hex-encoded; watchpoint_exceptions_received tells lldb whether a
// watch stop comes after the access (x86) or before it (the others), which
// it would otherwise guess from the architecture.
std::string arch_keys(const ArchDesc& arch) {
  std::string out = "triple:" + encode_hex_text(arch.lldb_triple) + ";";
  out += "ptrsize:" + std::to_string(arch.ptr_size) + ";";
  out += std::string("endian:") + (arch.endian == Endian::Little ? "little" : "big") + ";";
  out += "ostype:linux;";
  return out;
}

}  // namespace

void q_host_info(HandlerContext& ctx, std::string_view) {
  const ArchDesc& arch = ctx.target.arch();
  std::string out = arch_keys(arch);
  out += std::string("watchpoint_exceptions_received:") +
         (arch.watch_timing == WatchTiming::AfterAccess ? "after" : "before") + ";";
  ctx.reply(out);
}

void q_process_info(HandlerContext& ctx, std::string_view) {
  std::string out = "pid:" + hex_number(to_wire_id(ctx.target.pid())) + ";";
  out += arch_keys(ctx.target.arch());
  ctx.reply(out);
}

void q_watchpoint_support_info(HandlerContext& ctx, std::string_view) {
  TargetCaps caps = ctx.target.capabilities();
  if (!caps.watchpoints) return ctx.unsupported();
  ctx.reply("num:" + std::to_string(caps.watchpoint_slots) + ";");
}

// "Text=xxx;Data=xxx;Bss=xxx" (GDB manual, General Query Packets: qOffsets):
// one offset for every section, as for a program loaded in one piece. The
// manual calls Bss optional, but gdb 13 (remote.c get_offsets) rejects a
// reply without it as "Malformed response to offset query" and drops the
// connection; lldb reads all three.
void q_offsets(HandlerContext& ctx, std::string_view) {
  auto offset = ctx.target.load_offset();
  if (!offset) return ctx.unsupported();
  std::string hex = hex_number(*offset);
  ctx.reply("Text=" + hex + ";Data=" + hex + ";Bss=" + hex);
}

// "1": we are attached to an existing process, so gdb detaches on quit
// instead of killing.
void q_attached(HandlerContext& ctx, std::string_view) { ctx.reply("1"); }

// No symbol lookups needed.
void q_symbol(HandlerContext& ctx, std::string_view) { ctx.ok(); }

}  // namespace ttd::gdb::packets
