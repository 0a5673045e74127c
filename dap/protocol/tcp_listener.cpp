#include "dap/protocol/tcp_listener.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <charconv>
#include <cstring>

namespace ttd::dap {

Result<TcpListener> TcpListener::listen(const std::string& host_port) {
  size_t colon = host_port.rfind(':');
  if (colon == std::string::npos) return make_error("--listen", "expected HOST:PORT (e.g. 127.0.0.1:4711), got '" + host_port + "'");
  std::string host = host_port.substr(0, colon);
  if (host == "localhost" || host.empty()) host = "127.0.0.1";
  unsigned port = 0;
  auto r = std::from_chars(host_port.data() + colon + 1, host_port.data() + host_port.size(), port);
  if (r.ec != std::errc() || r.ptr != host_port.data() + host_port.size() || port > 65535)
    return make_error("--listen", "port must be a number 0..65535, got '" + host_port.substr(colon + 1) + "'");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(uint16_t(port));
  if (inet_pton(AF_INET, host.c_str(), &addr.sin_addr) != 1)
    return make_error("--listen", "'" + host + "' is not an IPv4 address");
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return make_error("--listen", std::string("socket: ") + std::strerror(errno));
  int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(fd, 16) != 0) {
    std::string msg = std::strerror(errno);
    ::close(fd);
    return make_error("--listen", "cannot listen on " + host_port + ": " + msg);
  }
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  return TcpListener(fd, ntohs(addr.sin_port));
}

TcpListener::~TcpListener() {
  if (fd_ >= 0) ::close(fd_);
}

Result<int> TcpListener::accept_within(int timeout_ms) {
  for (;;) {
    pollfd p{fd_, POLLIN, 0};
    int r = ::poll(&p, 1, timeout_ms);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return make_error("--listen", std::string("poll: ") + std::strerror(errno));
    if (r == 0) return -1;
    return accept();
  }
}

Result<int> TcpListener::accept() {
  for (;;) {
    int c = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (c < 0 && errno == EINTR) continue;
    if (c < 0) return make_error("--listen", std::string("accept: ") + std::strerror(errno));
    int one = 1;
    ::setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return c;
  }
}

}  // namespace ttd::dap
