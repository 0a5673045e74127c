// `ttd serve`'s listening socket is the shared one (net/tcp_listener.h):
// bind HOST:PORT (port 0 picks a free one), accept clients one at a time,
// TCP_NODELAY on every connection (RSP is many tiny round trips). The
// names stay in gdb:: for the stub's users.
#pragma once
#include "net/host_port.h"
#include "net/tcp_listener.h"

namespace ttd::gdb {

using HostPort = net::HostPort;
using TcpListener = net::TcpListener;
// "127.0.0.1:1234", ":1234" (host 127.0.0.1), "1234", "localhost:0".
using net::parse_host_port;

}  // namespace ttd::gdb
