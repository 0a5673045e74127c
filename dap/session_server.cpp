#include "dap/session_server.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <list>
#include <memory>
#include <string>
#include <thread>

#include "dap/protocol/channel.h"
#include "dap/protocol/outbox.h"

namespace ttd::dap {

namespace {

constexpr int kPollMs = 200;     // how often the accept loop looks at `stop`
constexpr int kRefuseDrainMs = 100;  // how long a refused client may still send

struct Running {
  std::thread thread;
  std::atomic<bool> done{false};
  int rc = 1;
};

// Tells a client over the limit why, then closes. The client's first
// request may be on its way: read and drop it briefly after our last
// byte, since closing a socket with unread input resets it and the client
// could lose the explanation.
void refuse(int fd, const std::string& why, const SessionOptions& options) {
  {
    FdChannel ch(fd, fd, /*owns=*/false);
    Outbox out(ch);
    out.output("ttd dap: " + why + "\n", "stderr");
    out.event("terminated");
  }
  ::shutdown(fd, SHUT_WR);
  char sink[4096];
  for (int waited = 0; waited < kRefuseDrainMs; waited += 10) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 10) <= 0) continue;
    if (::read(fd, sink, sizeof sink) <= 0) break;
  }
  ::close(fd);
  if (options.log) options.log("refused a client: " + why);
}

}  // namespace

int serve_sessions(net::TcpListener& listener, const SessionOptions& options, const ServerLimits& limits,
                   const std::function<bool()>& stop) {
  std::list<std::unique_ptr<Running>> running;
  bool served_once = false;
  int last_rc = 1;  // of the last session that ended
  auto reap = [&] {
    for (auto it = running.begin(); it != running.end();) {
      if (!(*it)->done) {
        ++it;
        continue;
      }
      (*it)->thread.join();
      last_rc = (*it)->rc;
      it = running.erase(it);
    }
  };
  int rc = 0;
  for (;;) {
    reap();
    if (limits.once && served_once && running.empty()) break;
    if (stop && stop()) break;
    auto c = listener.accept_within(kPollMs);
    if (!c) {
      if (options.log) options.log(c.error().to_string());
      rc = 1;
      break;
    }
    if (*c < 0) continue;  // timed out: look at stop and the sessions again
    reap();
    size_t limit = limits.once ? 1 : limits.max_clients;
    if (running.size() >= limit || (limits.once && served_once)) {
      refuse(*c,
             limits.once ? "already serving a session (started with --once); this connection is refused"
                         : "already serving " + std::to_string(running.size()) + " clients, the limit (--max-clients " +
                               std::to_string(limits.max_clients) + "); this connection is refused, try again later",
             options);
      continue;
    }
    served_once = true;
    auto r = std::make_unique<Running>();
    Running* slot = r.get();
    int fd = *c;
    slot->thread = std::thread([slot, fd, &options] {
      FdChannel ch(fd, fd, /*owns=*/true);
      slot->rc = run_session(ch, options);
      slot->done = true;
    });
    running.push_back(std::move(r));
  }
  // Sessions still running end when their clients disconnect.
  for (auto& r : running) {
    r->thread.join();
    last_rc = r->rc;
  }
  return limits.once && rc == 0 ? last_rc : rc;
}

}  // namespace ttd::dap
