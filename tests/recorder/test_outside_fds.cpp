// Which guest descriptors another process makes ready (GuestFd::outside,
// set by GuestFdTable::add): a FIFO, a character device, a socket the
// program did not make, not a file, nor a pipe or socket the program made.
// The recorder asks the host about those in poll/select/epoll and parks a
// thread whose read or write of one would wait (cli_outside_waits.py
// checks that against native runs).
#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tools/recorder/guest_fd_table.h"

using namespace ttd::rec;

TEST_CASE("GuestFdTable: a FIFO, a character device and a foreign socket are outside, a file and own pipes are not") {
  GuestFdTable table;
  auto add = [&](int host, bool pipe = false) {
    GuestFd f;
    f.kind = GuestFd::Kind::Host;
    f.host = host;
    f.pipe = pipe;
    return table.get(table.add(std::move(f)));
  };
  int p[2];
  REQUIRE(::pipe2(p, O_CLOEXEC) == 0);
  CHECK(add(p[0])->outside);                 // an inherited pipe
  CHECK_FALSE(add(p[1], true)->outside);     // a pipe the program made
  const int null = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  REQUIRE(null >= 0);
  CHECK(add(null)->outside);                 // a character device (always ready to poll)
  const int file = ::open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
  REQUIRE(file >= 0);
  CHECK_FALSE(add(file)->outside);           // a file is always ready
  int s[2];
  REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, s) == 0);
  CHECK(add(s[0])->outside);                 // a socket it did not make (received, inherited)
  ::close(s[1]);
  // A dup keeps it.
  const GuestFd* first = table.get(3);
  REQUIRE(first);
  CHECK(table.get(table.dup(3, 0, false))->outside == first->outside);
}
