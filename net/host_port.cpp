#include "net/host_port.h"

namespace ttd::net {

Result<HostPort> parse_host_port(std::string_view text) {
  HostPort out;
  size_t colon = text.rfind(':');
  std::string_view port = colon == std::string_view::npos ? text : text.substr(colon + 1);
  if (colon != std::string_view::npos && colon > 0) out.host = std::string(text.substr(0, colon));
  if (port.empty() || port.size() > 5) return make_error("--listen", "expected HOST:PORT, got '" + std::string(text) + "'");
  uint32_t value = 0;
  for (char c : port) {
    if (c < '0' || c > '9') return make_error("--listen", "port must be a number, got '" + std::string(port) + "'");
    value = value * 10 + uint32_t(c - '0');
  }
  if (value > 65535) return make_error("--listen", "port out of range: " + std::string(port));
  out.port = uint16_t(value);
  return out;
}

}  // namespace ttd::net
