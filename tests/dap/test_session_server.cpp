// `ttd dap --listen`'s server: clients are served at the same time, up to
// the limit; the one over it is told why and closed at once.
#include <doctest/doctest.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <nlohmann/json.hpp>
#include <thread>

#include "dap/protocol/channel.h"
#include "dap/protocol/framing.h"
#include "dap/session_server.h"
#include "net/tcp_listener.h"

using namespace ttd;
using namespace ttd::dap;
using json = nlohmann::json;

namespace {

struct TcpClient {
  int fd = -1;
  std::unique_ptr<FdChannel> ch;
  std::unique_ptr<MessageReader> reader;
  explicit TcpClient(uint16_t port) {
    fd = ::socket(AF_INET, SOCK_STREAM, 0);
    REQUIRE(fd >= 0);
    timeval tv{10, 0};  // a silent server fails the test instead of hanging it
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
    ch = std::make_unique<FdChannel>(fd, fd, /*owns=*/true);
    reader = std::make_unique<MessageReader>(*ch);
  }
  void send(int seq, const std::string& command) {
    std::string m = frame_message(json{{"seq", seq}, {"type", "request"}, {"command", command}}.dump());
    REQUIRE(ch->write_all(m.data(), m.size()));
  }
  Frame next() { return reader->next(); }
};

}  // namespace

TEST_CASE("session server: concurrent clients up to the limit, the next one refused") {
  auto l = net::TcpListener::listen(net::HostPort{});
  REQUIRE(l.ok());
  SessionOptions o;  // no launches here: a factory is not needed
  ServerLimits limits;
  limits.max_clients = 2;
  std::atomic<bool> stop{false};
  int rc = -1;
  std::thread server([&] { rc = serve_sessions(*l, o, limits, [&] { return stop.load(); }); });

  TcpClient a(l->port()), b(l->port());
  // Both are answered while both stay connected (one at a time, b would wait).
  b.send(1, "initialize");
  a.send(1, "initialize");
  for (TcpClient* c : {&a, &b}) {
    Frame f = c->next();
    REQUIRE(f.kind == Frame::Kind::Message);
    json r = json::parse(f.body);
    CHECK(r["type"] == "response");
    CHECK(r["success"] == true);
  }
  TcpClient over(l->port());
  over.send(1, "initialize");
  Frame f = over.next();
  REQUIRE(f.kind == Frame::Kind::Message);
  json out = json::parse(f.body);
  CHECK(out["event"] == "output");
  std::string text = out["body"]["output"];
  CHECK(text.find("--max-clients 2") != std::string::npos);
  f = over.next();
  REQUIRE(f.kind == Frame::Kind::Message);
  CHECK(json::parse(f.body)["event"] == "terminated");
  CHECK(over.next().kind == Frame::Kind::End);  // and closed

  // A slot freed is a slot again.
  a.ch.reset();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  TcpClient c(l->port());
  c.send(7, "initialize");
  f = c.next();
  REQUIRE(f.kind == Frame::Kind::Message);
  CHECK(json::parse(f.body)["request_seq"] == 7);

  b.ch.reset();
  c.ch.reset();
  stop = true;
  server.join();
  CHECK(rc == 0);
}
