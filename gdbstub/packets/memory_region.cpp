// qMemoryRegionInfo:<addr> (lldb). For an unmapped address the reply spans
// up to the next mapping: a fixed small size makes lldb probe page by page
// when it looks for room for a JIT allocation.
#include "gdbstub/hex.h"
#include "gdbstub/packets/handlers.h"
#include "gdbstub/packets/thread_select.h"

namespace ttd::gdb::packets {

void q_memory_region_info(HandlerContext& ctx, std::string_view args) {
  if (!ctx.target.capabilities().memory_regions) return ctx.unsupported();
  auto addr = parse_hex_u64(args);
  if (!addr) return ctx.error(ErrorCode::BadPacket, "malformed address");
  auto tid = resolve_thread(ctx, ctx.state.g_thread);
  if (!tid) return ctx.error(ErrorCode::UnknownThread, "no such thread at this position");
  auto region = ctx.target.memory_region(*tid, *addr);
  if (!region || region->size == 0) return ctx.unsupported();
  std::string out = "start:" + hex_number(region->start) + ";size:" + hex_number(region->size) + ";";
  // No permissions key at all is how lldb learns the range is unmapped.
  if (region->mapped) {
    out += "permissions:";
    if (region->readable) out += 'r';
    if (region->writable) out += 'w';
    if (region->executable) out += 'x';
    out += ';';
    if (!region->name.empty()) out += "name:" + encode_hex_text(region->name) + ";";
  }
  ctx.reply(out);
}

}  // namespace ttd::gdb::packets
