// A listening TCP socket for `ttd dap --listen HOST:PORT` (clients such as
// VS Code's "debugServer" connect to it). Port 0 picks a free port.
#pragma once
#include <cstdint>
#include <string>

#include "state/error.h"

namespace ttd::dap {

class TcpListener {
 public:
  // Parses "HOST:PORT" (HOST a numeric IPv4 address or "localhost").
  static Result<TcpListener> listen(const std::string& host_port);
  TcpListener(TcpListener&& o) noexcept : fd_(o.fd_), port_(o.port_) { o.fd_ = -1; }
  TcpListener& operator=(TcpListener&&) = delete;
  ~TcpListener();
  uint16_t port() const { return port_; }
  // Blocks until a client connects; returns the connected socket.
  Result<int> accept();
  // Like accept(), but returns -1 when no client came within timeout_ms.
  Result<int> accept_within(int timeout_ms);

 private:
  TcpListener(int fd, uint16_t port) : fd_(fd), port_(port) {}
  int fd_ = -1;
  uint16_t port_ = 0;
};

}  // namespace ttd::dap
