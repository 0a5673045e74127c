// Routes one packet payload to the handler of its family and sends the
// handler's replies. One file per family lives in gdbstub/packets/; this
// file only knows the names. Unknown packets get the empty reply, which
// every client reads as "not supported".
#pragma once
#include <string_view>

#include "gdbstub/errors.h"
#include "gdbstub/session_state.h"
#include "gdbstub/target.h"

namespace ttd::gdb {

// Where replies go: the session frames them (and keeps the last one for a
// retransmit); tests collect them. Payloads are in wire form.
class ReplySink {
 public:
  virtual ~ReplySink() = default;
  virtual void send(std::string_view payload) = 0;
};

struct HandlerContext {
  Target& target;
  SessionState& state;
  ReplySink& out;
  // Polled during resumes; returns true when the client interrupted.
  InterruptCheck interrupted;

  void reply(std::string_view payload) { out.send(payload); }
  void ok() { out.send("OK"); }
  void unsupported() { out.send(""); }
  void error(ErrorCode code, std::string_view message = {}) {
    out.send(error_reply(state.client, code, message));
  }
};

// Handles one (unescaped) packet payload. Exactly one reply is sent for
// every packet except 'k' (which has none) and qRcmd (O packets, then one
// final reply). Never throws on bad input.
void dispatch(HandlerContext& ctx, std::string_view packet);

}  // namespace ttd::gdb
