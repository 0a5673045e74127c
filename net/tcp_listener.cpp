#include "net/tcp_listener.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace ttd::net {

namespace {
constexpr int kBacklog = 16;
}

Result<TcpListener> TcpListener::listen(const HostPort& where) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  std::string port = std::to_string(where.port);
  int rc = ::getaddrinfo(where.host.c_str(), port.c_str(), &hints, &found);
  if (rc != 0) return make_error(where.host, std::string("cannot resolve: ") + gai_strerror(rc));
  std::string last_error = "no usable address";
  for (addrinfo* a = found; a; a = a->ai_next) {
    int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      last_error = std::strerror(errno);
      continue;
    }
    int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(fd, a->ai_addr, a->ai_addrlen) != 0 || ::listen(fd, kBacklog) != 0) {
      last_error = std::strerror(errno);
      ::close(fd);
      continue;
    }
    sockaddr_storage bound{};
    socklen_t len = sizeof bound;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &len);
    uint16_t real_port = bound.ss_family == AF_INET6 ? ntohs(reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port)
                                                     : ntohs(reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
    ::freeaddrinfo(found);
    return TcpListener(fd, where.host, real_port);
  }
  ::freeaddrinfo(found);
  return make_error(where.host + ":" + port, "cannot listen: " + last_error);
}

TcpListener::TcpListener(TcpListener&& o) noexcept : fd_(o.fd_), host_(std::move(o.host_)), port_(o.port_) {
  o.fd_ = -1;
}

TcpListener& TcpListener::operator=(TcpListener&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = o.fd_;
    host_ = std::move(o.host_);
    port_ = o.port_;
    o.fd_ = -1;
  }
  return *this;
}

TcpListener::~TcpListener() {
  if (fd_ >= 0) ::close(fd_);
}

Result<int> TcpListener::accept_within(int timeout_ms) {
  for (;;) {
    pollfd p{fd_, POLLIN, 0};
    int r = ::poll(&p, 1, timeout_ms);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return make_error("accept", std::strerror(errno));
    if (r == 0) return -1;
    int fd = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) {
      // The client left between poll and accept, or a signal came: wait on.
      if (errno == EINTR || errno == ECONNABORTED || errno == EAGAIN) continue;
      return make_error("accept", std::strerror(errno));
    }
    int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
  }
}

Result<int> TcpListener::accept() { return accept_within(-1); }

std::string TcpListener::address() const {
  const std::string port = std::to_string(port_);
  return host_.find(':') != std::string::npos ? "[" + host_ + "]:" + port : host_ + ":" + port;
}

}  // namespace ttd::net
