// A listening TCP socket (`ttd serve`, `ttd dap --listen`): binds HOST:PORT
// (port 0 picks a free one), hands out connected sockets. Accepted sockets
// have TCP_NODELAY set: both protocols are many small request/reply round
// trips. How many clients are served at once, and for how long an idle one
// is kept, is the server's policy (--max-clients, --idle-timeout), not the
// listener's.
#pragma once
#include <cstdint>
#include <string>

#include "net/host_port.h"
#include "state/error.h"

namespace ttd::net {

class TcpListener {
 public:
  // Errors name HOST (cannot resolve) or HOST:PORT (cannot bind / listen).
  static Result<TcpListener> listen(const HostPort& where);
  TcpListener(TcpListener&& o) noexcept;
  TcpListener& operator=(TcpListener&& o) noexcept;
  TcpListener(const TcpListener&) = delete;
  TcpListener& operator=(const TcpListener&) = delete;
  ~TcpListener();

  const std::string& host() const { return host_; }
  uint16_t port() const { return port_; }  // the real port, also after port 0
  // "HOST:PORT" with the real port, "[HOST]:PORT" for an IPv6 address: what
  // a client connects to (the servers' banners print it).
  std::string address() const;
  int fd() const { return fd_; }

  // Blocks until a client connects; the connected socket (the caller owns it).
  Result<int> accept();
  // Like accept(), but -1 (not an error) when no client came within timeout_ms.
  Result<int> accept_within(int timeout_ms);

 private:
  TcpListener(int fd, std::string host, uint16_t port) : fd_(fd), host_(std::move(host)), port_(port) {}
  int fd_ = -1;
  std::string host_;
  uint16_t port_ = 0;
};

}  // namespace ttd::net
