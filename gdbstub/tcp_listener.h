// A listening TCP socket for `ttd serve`: bind HOST:PORT (port 0 picks a
// free one), accept clients one at a time. Accepted sockets have
// TCP_NODELAY set: RSP is many tiny request/reply round trips.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "state/error.h"

namespace ttd::gdb {

struct HostPort {
  std::string host;
  uint16_t port = 0;
};
// "127.0.0.1:1234", ":1234" (host 127.0.0.1), "1234", "localhost:0".
Result<HostPort> parse_host_port(std::string_view text);

class TcpListener {
 public:
  static Result<TcpListener> listen(const HostPort& where);
  TcpListener(TcpListener&& o) noexcept;
  TcpListener& operator=(TcpListener&& o) noexcept;
  ~TcpListener();

  const std::string& host() const { return host_; }
  uint16_t port() const { return port_; }  // the real port, also after port 0
  int fd() const { return fd_; }

  // A connected socket; Error on failure, or when timeout_ms (>= 0) passes.
  Result<int> accept(int timeout_ms = -1);

 private:
  TcpListener(int fd, std::string host, uint16_t port) : fd_(fd), host_(std::move(host)), port_(port) {}
  int fd_ = -1;
  std::string host_;
  uint16_t port_ = 0;
};

}  // namespace ttd::gdb
