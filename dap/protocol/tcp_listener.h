// `ttd dap --listen HOST:PORT` (clients such as VS Code's "debugServer"
// connect to it): the shared listener (net/tcp_listener.h) with the
// address rules `ttd dap` has always had: HOST is a numeric IPv4 address or
// "localhost" (empty = 127.0.0.1); port 0 picks a free port.
#pragma once
#include <string>

#include "net/tcp_listener.h"
#include "state/error.h"

namespace ttd::dap {

class TcpListener : public net::TcpListener {
 public:
  // Errors name "--listen" and what was wrong with the text.
  static Result<TcpListener> listen(const std::string& host_port);

 private:
  explicit TcpListener(net::TcpListener&& l) : net::TcpListener(std::move(l)) {}
};

}  // namespace ttd::dap
