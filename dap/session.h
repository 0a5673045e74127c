// One DAP session over a channel: a reader thread parses framed messages
// into a queue (and raises the interrupt flag when pause or disconnect
// arrives while a long run is in progress); the session thread answers
// them in order through the dispatcher.
#pragma once
#include <functional>
#include <string>

#include "dap/debuggee.h"
#include "dap/protocol/channel.h"

namespace ttd::dap {

struct SessionOptions {
  DebuggeeFactory factory;
  // Diagnostics of the adapter itself (stderr of `ttd dap`); may be empty.
  std::function<void(const std::string&)> log;
};

// Serves the client until it disconnects or closes the channel. Returns 0
// after a disconnect request, 1 when the input ended without one.
int run_session(Channel& channel, const SessionOptions& options);

}  // namespace ttd::dap
