// Serves DAP sessions to the clients of a listening socket (`ttd dap
// --listen`), several at once: each accepted client gets its own session
// thread and its own debuggee (opened by the factory on launch). A client
// over the limit is told why in an "output" event, sent "terminated", and
// closed at once: no thread waits on a connection beyond the limit.
#pragma once
#include <cstddef>
#include <functional>

#include "dap/session.h"
#include "net/tcp_listener.h"

namespace ttd::dap {

constexpr size_t kDefaultMaxClients = 8;

struct ServerLimits {
  size_t max_clients = kDefaultMaxClients;  // sessions served at the same time
  bool once = false;  // serve one session, refuse others meanwhile, then return its code
};

// Runs until `stop` (polled a few times a second) says so, then waits for
// the sessions still running to end; with `once`, until the first session
// ends. Returns that session's code with `once`, 1 when accept() failed,
// else 0.
int serve_sessions(net::TcpListener& listener, const SessionOptions& options, const ServerLimits& limits,
                   const std::function<bool()>& stop = {});

}  // namespace ttd::dap
