// Signals sent to `ttd record` from outside (host_signal_forwarding.h):
// a host wait never sleeps through one. The race this pins: the signal
// came after the recorder's last check and before its poll began, so the
// handler had run already and a plain ppoll waited for the next signal
// (cli_stop_signals.py's "restart" case hung under load that way).
#include <doctest/doctest.h>

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <thread>

#include "tools/recorder/host_signal_forwarding.h"

namespace test_host_signal_forwarding {

using namespace ttd::rec;
using Clock = std::chrono::steady_clock;

namespace {

struct Pipe {
  int fd[2] = {-1, -1};
  Pipe() { REQUIRE(::pipe(fd) == 0); }
  ~Pipe() { ::close(fd[0]), ::close(fd[1]); }
};

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

void drop_taken() {
  uint32_t senders[65];
  (void)take_host_signals(senders);
}

}  // namespace

TEST_CASE("host signals: a signal that came before the poll ends it at once") {
  HostSignalForwarding forwarding;
  drop_taken();
  Pipe p;
  ::raise(SIGWINCH);  // handled now: only the flag remembers it
  REQUIRE(host_signal_pending());
  pollfd fd{p.fd[0], POLLIN, 0};
  const timespec two_seconds{2, 0};
  const auto t = Clock::now();
  const int r = poll_or_host_signal(&fd, 1, &two_seconds);
  const int err = errno;
  CHECK(r == -1);
  CHECK(err == EINTR);
  CHECK(seconds_since(t) < 1.0);
  uint32_t senders[65];
  CHECK(take_host_signals(senders) == (uint64_t(1) << (SIGWINCH - 1)));
}

TEST_CASE("host signals: without one, the poll waits for its fd or its timeout") {
  HostSignalForwarding forwarding;
  drop_taken();
  Pipe p;
  pollfd fd{p.fd[0], POLLIN, 0};
  const timespec short_wait{0, 50'000'000};
  CHECK(poll_or_host_signal(&fd, 1, &short_wait) == 0);
  REQUIRE(::write(p.fd[1], "x", 1) == 1);
  CHECK(poll_or_host_signal(&fd, 1, nullptr) == 1);
  CHECK((fd.revents & POLLIN) != 0);
}

TEST_CASE("host signals: one sent during the poll ends it, even with the signals blocked before") {
  HostSignalForwarding forwarding;
  drop_taken();
  // The emulator's thread may hold them blocked around a fork
  // (ForwardedSignalsBlocked); the poll still opens the window.
  ForwardedSignalsBlocked blocked;
  Pipe p;
  pollfd fd{p.fd[0], POLLIN, 0};
  const timespec five_seconds{5, 0};
  const pid_t me = ::getpid();
  std::thread sender([me] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    ::kill(me, SIGWINCH);
  });
  const auto t = Clock::now();
  const int r = poll_or_host_signal(&fd, 1, &five_seconds);
  const int err = errno;
  sender.join();
  CHECK(r == -1);
  CHECK(err == EINTR);
  CHECK(seconds_since(t) < 4.0);
  CHECK(host_signal_pending());
  drop_taken();
}

}  // namespace test_host_signal_forwarding
