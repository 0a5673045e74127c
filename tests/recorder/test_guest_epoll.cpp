// The eventfd counter and the epoll reporting rules on their own
// (guest_eventfd.h, guest_epoll.h), with a probe the test controls.
#include <doctest/doctest.h>

#include <map>
#include <memory>
#include <vector>

#include "tools/recorder/guest_epoll.h"
#include "tools/recorder/guest_eventfd.h"
#include "tools/recorder/guest_fd_table.h"

using namespace ttd::rec;

TEST_CASE("GuestEventfd: Linux's counter rules") {
  GuestEventfd ev(0, false, false);
  uint64_t v = 0;
  CHECK(ev.read(v) == -EAGAIN);
  CHECK_FALSE(ev.readable());
  CHECK(ev.writable());
  CHECK(ev.write(5) == 8);
  CHECK(ev.write(2) == 8);
  CHECK(ev.read(v) == 8);
  CHECK(v == 7);
  CHECK(ev.count() == 0);
  CHECK(ev.write(~0ull) == -EINVAL);
  CHECK(ev.write(GuestEventfd::kMax) == 8);
  CHECK_FALSE(ev.writable());
  CHECK(ev.write(1) == -EAGAIN);
  CHECK(ev.write(0) == 8);  // adding 0 always fits
  CHECK(ev.changes() == 5);

  GuestEventfd sem(2, true, true);
  CHECK(sem.read(v) == 8);
  CHECK(v == 1);
  CHECK(sem.read(v) == 8);
  CHECK(sem.read(v) == -EAGAIN);
  CHECK(sem.nonblocking());
}

namespace {

// An item key whose open file is numbered as its fd (no dups).
GuestEpoll::Key k(int fd) { return {uint64_t(fd), fd}; }

struct FakeFiles {
  std::map<int, GuestEpoll::Readiness> state;
  GuestEpoll::Readiness operator()(const GuestEpoll::Key& key) { return state[key.fd]; }
};

std::vector<uint64_t> datas(const std::vector<GuestEpoll::Event>& ev) {
  std::vector<uint64_t> out;
  for (const auto& e : ev) out.push_back(e.data);
  return out;
}

}  // namespace

TEST_CASE("GuestEpoll: ctl answers as Linux's") {
  GuestEpoll ep;
  CHECK(ep.ctl(GuestEpoll::kMod, k(3), GuestEpoll::kIn, 1) == -ENOENT);
  CHECK(ep.ctl(GuestEpoll::kDel, k(3), 0, 0) == -ENOENT);
  CHECK(ep.ctl(GuestEpoll::kAdd, k(3), GuestEpoll::kIn, 1) == 0);
  CHECK(ep.ctl(GuestEpoll::kAdd, k(3), GuestEpoll::kIn, 1) == -EEXIST);
  CHECK(ep.ctl(GuestEpoll::kMod, k(3), GuestEpoll::kIn | GuestEpoll::kExclusive, 1) == -EINVAL);
  CHECK(ep.ctl(GuestEpoll::kMod, k(4), GuestEpoll::kIn | GuestEpoll::kExclusive, 1) == -EINVAL);  // before ENOENT
  CHECK(ep.ctl(GuestEpoll::kAdd, k(5), GuestEpoll::kIn | GuestEpoll::kExclusive, 1) == 0);
  CHECK(ep.ctl(GuestEpoll::kMod, k(5), GuestEpoll::kIn, 1) == -EINVAL);  // an exclusive item cannot change
  CHECK(ep.ctl(GuestEpoll::kDel, k(5), 0, 0) == 0);
  CHECK(ep.ctl(7, k(3), 0, 0) == -EINVAL);
  CHECK(ep.ctl(GuestEpoll::kDel, k(3), 0, 0) == 0);
  CHECK(ep.items().empty());
}

TEST_CASE("GuestEpoll: level-triggered items go round in the order added, only what was asked is reported") {
  GuestEpoll ep;
  FakeFiles files;
  ep.ctl(GuestEpoll::kAdd, k(9), GuestEpoll::kIn, 90);
  ep.ctl(GuestEpoll::kAdd, k(4), GuestEpoll::kOut, 40);
  ep.ctl(GuestEpoll::kAdd, k(6), GuestEpoll::kIn, 60);
  files.state[9] = {GuestEpoll::kIn, 0};
  files.state[4] = {GuestEpoll::kIn | GuestEpoll::kOut, 0};
  files.state[6] = {GuestEpoll::kOut, 0};  // not what it asked for
  // Asking (consume false) reports without moving anything.
  CHECK(datas(ep.collect(files, 1, false)) == std::vector<uint64_t>{90});
  CHECK(datas(ep.collect(files, 1, false)) == std::vector<uint64_t>{90});
  CHECK(datas(ep.collect(files, 1, true)) == std::vector<uint64_t>{90});
  const auto second = ep.collect(files, 1, true);
  REQUIRE(second.size() == 1);
  CHECK(second[0].data == 40);
  CHECK(second[0].events == GuestEpoll::kOut);
  CHECK(datas(ep.collect(files, 1, true)) == std::vector<uint64_t>{90});
  CHECK(datas(ep.collect(files, 8, true)) == std::vector<uint64_t>{40, 90});
  // Hang-up and error come whatever was asked.
  files.state[6] = {GuestEpoll::kHup, 0};
  const auto all = ep.collect(files, 8, true);
  CHECK(all.size() == 3);
  CHECK(all.back().data == 60);
  CHECK(all.back().events == GuestEpoll::kHup);
}

TEST_CASE("GuestEpoll: edge-triggered once per change, one-shot until MOD, forget on close") {
  GuestEpoll ep;
  FakeFiles files;
  ep.ctl(GuestEpoll::kAdd, k(3), GuestEpoll::kIn | GuestEpoll::kEdge, 1);
  files.state[3] = {GuestEpoll::kIn, 10};
  CHECK(ep.collect(files, 4, false).size() == 1);  // asking does not use the edge up
  CHECK(ep.collect(files, 4, true).size() == 1);
  CHECK(ep.collect(files, 4, true).empty());
  files.state[3].changes = 11;  // another write
  CHECK(ep.collect(files, 4, true).size() == 1);
  CHECK(ep.collect(files, 4, true).empty());
  files.state[3] = {0, 12};  // drained
  CHECK(ep.collect(files, 4, true).empty());
  files.state[3] = {GuestEpoll::kIn, 12};  // ready again (seen unready in between)
  CHECK(ep.collect(files, 4, true).size() == 1);

  ep.ctl(GuestEpoll::kMod, k(3), GuestEpoll::kIn | GuestEpoll::kOneShot, 2);
  CHECK(ep.collect(files, 4, true).size() == 1);
  CHECK(ep.collect(files, 4, true).empty());
  files.state[3].changes = 20;
  CHECK(ep.collect(files, 4, true).empty());
  ep.ctl(GuestEpoll::kMod, k(3), GuestEpoll::kIn | GuestEpoll::kOneShot, 3);
  CHECK(datas(ep.collect(files, 4, true)) == std::vector<uint64_t>{3});
  ep.forget(3);
  CHECK(ep.items().empty());
}

TEST_CASE("GuestEpoll: items are (open file, fd), forget drops every item of a file") {
  GuestEpoll ep;
  // fd 3 and its dup 4 are one open file (30); fd 3 reused for file 31.
  CHECK(ep.ctl(GuestEpoll::kAdd, {30, 3}, GuestEpoll::kIn, 1) == 0);
  CHECK(ep.ctl(GuestEpoll::kAdd, {30, 4}, GuestEpoll::kIn, 2) == 0);  // the dup is another item
  CHECK(ep.ctl(GuestEpoll::kAdd, {31, 3}, GuestEpoll::kIn, 3) == 0);  // the number, another file
  CHECK(ep.ctl(GuestEpoll::kDel, {31, 4}, 0, 0) == -ENOENT);
  CHECK(ep.items().size() == 3);
  ep.forget(30);
  REQUIRE(ep.items().size() == 1);
  CHECK(ep.items().begin()->first == GuestEpoll::Key{31, 3});
  CHECK(ep.items().begin()->second.data == 3);
}

TEST_CASE("GuestEpoll: nest_error refuses loops and chains of more than 5 sets") {
  auto sets = std::vector<std::shared_ptr<GuestEpoll>>();
  std::vector<const GuestEpoll*> all;
  for (int i = 0; i < 8; ++i) {
    sets.push_back(std::make_shared<GuestEpoll>());
    all.push_back(sets.back().get());
  }
  auto nest = [&](int outer, int inner) {
    if (int e = GuestEpoll::nest_error(*sets[outer], *sets[inner], all); e < 0) return e;
    return sets[outer]->ctl(GuestEpoll::kAdd, {uint64_t(100 + inner), inner}, GuestEpoll::kIn, 0,
                            std::weak_ptr<const GuestEpoll>(sets[inner]));
  };
  CHECK(GuestEpoll::nest_error(*sets[0], *sets[0], all) == -ELOOP);
  // 0 > 1 > 2 > 3 > 4 is five sets deep; 4 > 5 would be six (top down).
  for (int i = 0; i < 4; ++i) CHECK(nest(i, i + 1) == 0);
  CHECK(nest(4, 5) == -ELOOP);
  CHECK(nest(4, 0) == -ELOOP);  // a loop
  CHECK(nest(2, 0) == -ELOOP);
  // A second chain 7 > 5 > 6: putting 0 under 6 makes 7 > 5 > 6 > 0 > ... > 4
  // (eight sets), so the edges above the new one count too.
  CHECK(nest(7, 5) == 0);
  CHECK(nest(5, 6) == 0);
  CHECK(nest(6, 0) == -ELOOP);
  CHECK(nest(6, 3) == 0);  // 7 > 5 > 6 > 3 > 4: five
  CHECK(nest(6, 2) == -ELOOP);  // 7 > 5 > 6 > 2 > 3 > 4: six
}

TEST_CASE("GuestFdTable: an epoll item stays while a descriptor of its open file is open") {
  GuestFdTable fds;
  GuestFd ep;
  ep.kind = GuestFd::Kind::Epoll;
  ep.epoll = std::make_shared<GuestEpoll>();
  const int epfd = fds.add(ep);
  GuestFd ev;
  ev.kind = GuestFd::Kind::Eventfd;
  ev.eventfd = std::make_shared<GuestEventfd>(0, false, false);
  const int a = fds.add(ev);
  const uint64_t file = fds.get(a)->file;
  CHECK(file != fds.get(epfd)->file);
  const GuestEpoll::Key key{file, a};
  REQUIRE(fds.get(epfd)->epoll->ctl(GuestEpoll::kAdd, key, GuestEpoll::kIn, 7) == 0);
  const int b = fds.dup(a, 0, false);
  CHECK(fds.get(b)->file == file);
  CHECK(fds.close(a) == 0);
  CHECK(fds.get(epfd)->epoll->items().size() == 1);
  CHECK(fds.fd_of_item(key) == b);  // probed through the dup
  const int c = fds.add(ev);        // takes a's number: another open file
  CHECK(c == a);
  CHECK(fds.get(c)->file != file);
  CHECK(fds.fd_of_item(key) == b);
  CHECK(fds.dup_to(c, b, false) == b);  // dup2 over the last descriptor of the file
  CHECK(fds.get(epfd)->epoll->items().empty());
  CHECK(fds.fd_of_item(key) == -1);
  CHECK(fds.epoll_sets() == std::vector<const GuestEpoll*>{fds.get(epfd)->epoll.get()});
}
