// The HOST:PORT a server listens on, as `--listen` spells it.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "state/error.h"

namespace ttd::net {

struct HostPort {
  std::string host = "127.0.0.1";  // loopback unless the user names another
  uint16_t port = 0;               // 0: the system picks a free port
};

// "127.0.0.1:1234", ":1234" (host 127.0.0.1), "1234", "localhost:0".
// Errors name "--listen" and quote the text.
Result<HostPort> parse_host_port(std::string_view text);

}  // namespace ttd::net
