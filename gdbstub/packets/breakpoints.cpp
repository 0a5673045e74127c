// Z / z: the stub only records breakpoints and watchpoints; they are handed
// to the target with every resume. Inserting one twice is harmless (gdb and
// lldb both re-insert around single steps), removing a missing one is OK.
// Z1 / Z2-Z4 get the empty "unsupported" reply when the target lacks them.
// Spec: the GDB manual, "Packets" (Z / z types 0-4).
#include <algorithm>

#include "gdbstub/hex.h"
#include "gdbstub/packets/handlers.h"

namespace ttd::gdb::packets {

namespace {

struct ZRequest {
  unsigned type = 0;  // 0 sw, 1 hw, 2 write, 3 read, 4 access
  uint64_t addr = 0, kind = 0;
};

// "<type>,<addr>,<kind>[;cond...]" -> nullopt when malformed. Conditions
// and commands are ignored (ConditionalBreakpoints+ is not advertised).
std::optional<ZRequest> parse_z(std::string_view args) {
  if (args.size() < 2 || args[0] < '0' || args[0] > '9' || args[1] != ',') return std::nullopt;
  ZRequest z;
  z.type = unsigned(args[0] - '0');
  args.remove_prefix(2);
  auto range = parse_hex_pair(args.substr(0, args.find(';')));
  if (!range) return std::nullopt;
  z.addr = range->first;
  z.kind = range->second;
  return z;
}

bool supported(const HandlerContext& ctx, unsigned type) {
  TargetCaps caps = ctx.target.capabilities();
  if (type == 0) return true;
  if (type == 1) return caps.hw_breakpoints;
  if (type <= 4) return caps.watchpoints;
  return false;
}

Watchpoint to_watchpoint(const ZRequest& z) {
  // Z2 write, Z3 read, Z4 access (GDB manual, "Packets": z type).
  WatchKind k = z.type == 2 ? WatchKind::Write : z.type == 3 ? WatchKind::Read : WatchKind::Access;
  return Watchpoint{z.addr, z.kind, k};
}

Breakpoint to_breakpoint(const ZRequest& z) {
  return Breakpoint{z.addr, z.type == 0 ? BreakpointType::Software : BreakpointType::Hardware, z.kind};
}

template <class T>
void add_once(std::vector<T>& list, const T& item) {
  if (std::find(list.begin(), list.end(), item) == list.end()) list.push_back(item);
}

template <class T>
void remove_all(std::vector<T>& list, const T& item) {
  list.erase(std::remove(list.begin(), list.end(), item), list.end());
}

}  // namespace

void insert_breakpoint(HandlerContext& ctx, std::string_view args) {
  auto z = parse_z(args);
  if (!z) return ctx.error(ErrorCode::BadPacket, "malformed Z packet");
  if (!supported(ctx, z->type)) return ctx.unsupported();
  if (z->type >= 2) {
    if (z->kind == 0 || z->addr + z->kind < z->addr)
      return ctx.error(ErrorCode::BadPacket, "watchpoint length must be non-zero and not wrap");
    add_once(ctx.state.watchpoints, to_watchpoint(*z));
  } else {
    add_once(ctx.state.breakpoints, to_breakpoint(*z));
  }
  ctx.ok();
}

void remove_breakpoint(HandlerContext& ctx, std::string_view args) {
  auto z = parse_z(args);
  if (!z) return ctx.error(ErrorCode::BadPacket, "malformed z packet");
  if (!supported(ctx, z->type)) return ctx.unsupported();
  if (z->type >= 2) remove_all(ctx.state.watchpoints, to_watchpoint(*z));
  else remove_all(ctx.state.breakpoints, to_breakpoint(*z));
  ctx.ok();
}

}  // namespace ttd::gdb::packets
