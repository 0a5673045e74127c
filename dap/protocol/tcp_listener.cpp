#include "dap/protocol/tcp_listener.h"

#include <arpa/inet.h>

#include <charconv>

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
  in_addr addr{};
  if (inet_pton(AF_INET, host.c_str(), &addr) != 1) return make_error("--listen", "'" + host + "' is not an IPv4 address");
  auto l = net::TcpListener::listen(net::HostPort{host, uint16_t(port)});
  if (!l) {
    std::string why = l.error().message;  // "cannot listen: <errno text>"
    if (why.rfind("cannot listen: ", 0) == 0) why.erase(0, 15);
    return make_error("--listen", "cannot listen on " + host_port + ": " + why);
  }
  return TcpListener(std::move(*l));
}

}  // namespace ttd::dap
