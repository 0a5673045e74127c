// net/: the listener and descriptor channel gdbstub and dap share.
#include <doctest/doctest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "net/fd_channel.h"
#include "net/host_port.h"
#include "net/tcp_listener.h"

using namespace ttd;

TEST_CASE("HOST:PORT: loopback by default, errors quote the text") {
  auto a = net::parse_host_port("1234");
  REQUIRE(a.ok());
  CHECK(a->host == "127.0.0.1");
  CHECK(a->port == 1234);
  auto b = net::parse_host_port(":0");
  REQUIRE(b.ok());
  CHECK(b->host == "127.0.0.1");
  auto c = net::parse_host_port("localhost:80");
  REQUIRE(c.ok());
  CHECK(c->host == "localhost");
  for (const char* bad : {"", "host:", "h:12x", "h:65536", "h:123456"}) {
    auto e = net::parse_host_port(bad);
    REQUIRE_FALSE(e.ok());
    CHECK(e.error().where == "--listen");
  }
}

TEST_CASE("the listener picks a free port on 127.0.0.1, times out without a client, accepts one") {
  auto l = net::TcpListener::listen(net::HostPort{});
  REQUIRE_MESSAGE(l.ok(), l.error().to_string());
  CHECK(l->host() == "127.0.0.1");
  REQUIRE(l->port() != 0);
  auto none = l->accept_within(10);
  REQUIRE(none.ok());
  CHECK(*none == -1);

  int client = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  REQUIRE(client >= 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(l->port());
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::connect(client, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  auto fd = l->accept_within(5000);
  REQUIRE(fd.ok());
  REQUIRE(*fd >= 0);
  net::FdChannel server(*fd, *fd, /*owns_fds=*/true);
  net::FdChannel peer(client, client, /*owns_fds=*/true);
  REQUIRE(peer.write_all("ping"));
  uint8_t buf[16];
  auto r = server.read(buf, 5000);
  REQUIRE(r.status == net::ReadStatus::Data);
  CHECK(std::string(reinterpret_cast<char*>(buf), r.bytes) == "ping");

  auto busy = net::TcpListener::listen(net::HostPort{"127.0.0.1", l->port()});
  // SO_REUSEADDR does not let two sockets listen on one port.
  REQUIRE_FALSE(busy.ok());
  CHECK(busy.error().where == "127.0.0.1:" + std::to_string(l->port()));
}

TEST_CASE("channel: timeouts, end of input, shutdown from another thread, a vanished peer") {
  int fds[2];
  REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) == 0);
  net::FdChannel a(fds[0], fds[0], /*owns_fds=*/true, /*write_timeout_ms=*/200);
  uint8_t buf[8];
  CHECK(a.read(buf, 0).status == net::ReadStatus::Timeout);
  CHECK_FALSE(a.readable_within(0));

  // shutdown() wakes a read that waits without limit.
  std::thread waker([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    a.shutdown();
  });
  CHECK(a.read(buf, -1).status == net::ReadStatus::Closed);
  waker.join();

  // A peer that never reads: the write fails after the timeout, it does not hang.
  std::string big(size_t(16) << 20, 'x');
  auto t0 = std::chrono::steady_clock::now();
  CHECK_FALSE(a.write_all(big));
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(10));

  // A peer that is gone: an error value, not SIGPIPE.
  ::close(fds[1]);
  CHECK_FALSE(a.write_all("after close"));
}

TEST_CASE("channel over a pipe pair reads end of input as Closed") {
  int in[2];
  REQUIRE(::pipe(in) == 0);
  net::FdChannel c(in[0], -1, /*owns_fds=*/false);
  REQUIRE(::write(in[1], "ab", 2) == 2);
  ::close(in[1]);
  uint8_t buf[4];
  auto r = c.read(buf, 1000);
  CHECK(r.status == net::ReadStatus::Data);
  CHECK(r.bytes == 2);
  CHECK(c.read(buf, 1000).status == net::ReadStatus::Closed);
  ::close(in[0]);
}
