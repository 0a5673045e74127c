#include "gdbstub/packets/stop_reply.h"

#include "gdbstub/hex.h"

namespace ttd::gdb::packets {

namespace {

void append_expedited_register(std::string& out, const RegisterFile& regs, uint16_t index) {
  if (!regs.valid(index)) return;  // an unknown pc is left for g/p to report as xx
  const auto& desc = regs.arch().regs[index];
  out += hex_number(desc.gdb_regnum);
  out += ':';
  append_hex_bytes(out, regs.bytes(index));
  out += ';';
}

// lldb: "threads:1,2;thread-pcs:401000,401230;" (bare hex tids, pcs as
// numbers). thread-pcs is left out when some pc is unknown, since lldb
// pairs the two lists by position.
void append_thread_list(std::string& out, const HandlerContext& ctx) {
  auto threads = ctx.target.threads();
  std::string ids, pcs;
  bool all_pcs = true;
  for (const auto& t : threads) {
    if (!ids.empty()) ids += ',', pcs += ',';
    ids += hex_number(to_wire_id(t.tid));
    auto regs = ctx.target.read_registers(t.tid);
    std::optional<uint64_t> pc;
    if (regs) pc = regs->get_u64(ctx.target.arch().pc_index);
    if (pc) pcs += hex_number(*pc);
    else all_pcs = false;
  }
  out += "threads:" + ids + ";";
  if (all_pcs && !threads.empty()) out += "thread-pcs:" + pcs + ";";
}

// The signal of a stop reply. A client attaching finds the trace stopped
// for no reason of its own, and each debugger wants that said its own way,
// as its own server says it:
//  - gdb expects SIGTRAP (gdbserver turns the SIGSTOP of an attach into
//    SIGTRAP for `target remote`: "pretend it's just starting up");
//  - lldb must not get SIGTRAP (nor signal 0): it re-reads the first stop
//    after its dynamic loader plugin has set breakpoints, and SIGTRAP or no
//    signal at a breakpoint address counts as a hit there. For a static
//    program without _dl_debug_state (musl) DynamicLoaderPOSIXDYLD::ProbeEntry
//    puts a one-shot breakpoint on AT_ENTRY, which is the first pc of a
//    recorded trace; lldb took the attach stop for a hit on it, whose
//    callback says "keep going", and ran to the end of the trace. SIGSTOP is
//    what lldb-server reports for every first stop (launch or attach); lldb
//    passes it on resume (ignored here) and batch mode (-b) treats it as a
//    normal stop.
// lldb is the client that negotiated QThreadSuffixSupported (gdb never does).
std::string_view signal_of(StopReplyKind kind, const ClientFeatures& client) {
  if (kind == StopReplyKind::Interrupted) return "02";
  if (kind == StopReplyKind::Attached && client.thread_suffix) return "13";
  return "05";
}

std::string thread_part(const HandlerContext& ctx, uint64_t tid) {
  return "thread:" + format_thread_id(pid_of(ctx, tid), tid, ctx.state.client.multiprocess) + ";";
}

void append_expedited(std::string& out, const HandlerContext& ctx, uint64_t tid) {
  if (ctx.state.client.threads_in_stop_reply) append_thread_list(out, ctx);
  auto regs = ctx.target.read_registers(tid);
  if (!regs) return;
  const ArchDesc& arch = ctx.target.arch();
  append_expedited_register(out, *regs, arch.pc_index);
  if (arch.sp_index != arch.pc_index) append_expedited_register(out, *regs, arch.sp_index);
}

}  // namespace

uint64_t pid_of(const HandlerContext& ctx, uint64_t tid) {
  for (const auto& t : ctx.target.threads())
    if (t.tid == tid) return t.pid;
  return ctx.target.pid();
}

std::string format_stop_reply(const HandlerContext& ctx, const StopReason& stop) {
  const ClientFeatures& client = ctx.state.client;
  if (stop.kind == StopReplyKind::Exited) {
    static constexpr char kDigits[] = "0123456789abcdef";
    uint8_t code = uint8_t(stop.exit_code);
    std::string out{'W', kDigits[code >> 4], kDigits[code & 15]};
    if (client.multiprocess) out += ";process:" + hex_number(to_wire_id(ctx.target.pid()));
    return out;
  }
  std::string out = "T" + std::string(signal_of(stop.kind, client));
  out += thread_part(ctx, stop.tid);
  switch (stop.kind) {
    case StopReplyKind::SwBreakpoint:
      if (client.swbreak) out += "swbreak:;";
      break;
    case StopReplyKind::HwBreakpoint:
      if (client.hwbreak) out += "hwbreak:;";
      break;
    case StopReplyKind::Watchpoint: {
      const char* key = stop.watch_kind == WatchKind::Write ? "watch:"
                        : stop.watch_kind == WatchKind::Read ? "rwatch:"
                                                             : "awatch:";
      out += key + hex_number(stop.watch_addr) + ";";
      break;
    }
    case StopReplyKind::HistoryBegin: out += "replaylog:begin;"; break;
    case StopReplyKind::HistoryEnd: out += "replaylog:end;"; break;
    default: break;
  }
  append_expedited(out, ctx, stop.tid);
  return out;
}

std::string format_no_reason_reply(const HandlerContext& ctx, uint64_t tid) {
  std::string out = "T00" + thread_part(ctx, tid);
  append_expedited(out, ctx, tid);
  return out;
}

void note_stop(SessionState& state, const StopReason& stop, Direction direction) {
  state.last_stop = stop;
  if (stop.kind == StopReplyKind::Exited) return;
  if (direction == Direction::Backward && stop.kind != StopReplyKind::Interrupted) {
    state.g_thread = state.c_thread = IdSel::any();
  } else {
    state.g_thread = state.c_thread = IdSel::specific(stop.tid);
  }
}

}  // namespace ttd::gdb::packets
