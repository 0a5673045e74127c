// Ending a session: vKill, k, D. The trace is not affected; the session
// ends and a server may accept the next client.
#include "gdbstub/packets/handlers.h"

namespace ttd::gdb::packets {

void v_kill(HandlerContext& ctx, std::string_view) {
  ctx.ok();
  ctx.state.end = SessionEnd::Killed;
}

// 'k' has no reply.
void kill(HandlerContext& ctx, std::string_view) { ctx.state.end = SessionEnd::Killed; }

void detach(HandlerContext& ctx, std::string_view) {
  ctx.ok();
  ctx.state.end = SessionEnd::Detached;
}

}  // namespace ttd::gdb::packets
