// An epoll instance the guest made (epoll_create, epoll_create1): its
// interest list and Linux's reporting rules (fs/eventpoll.c) over
// descriptors whose readiness the kernel emulation can tell (pipes the
// program made, eventfds, files, the standard streams). The set does not
// look at descriptors itself: collect() asks a probe for each one, so the
// rules can be tested without a kernel.
//
// Rules kept: level-triggered items are reported while ready, in the
// order they became ready, and go to the back of that order once
// reported (so a small maxevents goes round them all); EPOLLET items are
// reported when they become ready or their file changed since the last
// report (a write, a read, a hang-up: Linux's wake-ups); EPOLLONESHOT
// items are disabled once reported until EPOLL_CTL_MOD. EPOLLERR and
// EPOLLHUP are always reported.
#pragma once
#include <algorithm>
#include <cstdint>
#include <map>
#include <vector>

namespace ttd::rec {

class GuestEpoll {
 public:
  static constexpr uint32_t kIn = 0x001, kOut = 0x004, kErr = 0x008, kHup = 0x010, kRdHup = 0x2000,
                            kExclusive = 1u << 28, kWakeup = 1u << 29, kOneShot = 1u << 30, kEdge = 1u << 31;
  enum Op : int { kAdd = 1, kDel = 2, kMod = 3 };

  // What a probe says about a descriptor now: its poll mask (EPOLLIN,
  // EPOLLOUT, EPOLLHUP, ...) and a count of changes to its file that
  // only grows.
  struct Readiness {
    uint32_t mask = 0;
    uint64_t changes = 0;
  };
  struct Event {
    uint32_t events = 0;
    uint64_t data = 0;
  };
  struct Item {
    uint32_t events = 0;  // as the guest asked (with EPOLLET / EPOLLONESHOT)
    uint64_t data = 0;
    bool armed = true;         // false: a reported EPOLLONESHOT item, until MOD
    bool reported = false;     // EPOLLET: reported and not seen unready since
    uint64_t changes = 0;      // EPOLLET: the file's changes when last reported
    uint64_t ready_order = 0;  // 0: not on the ready list; else its place
  };

  // EPOLL_CTL_ADD / MOD / DEL on fd (the caller has checked the
  // descriptors): 0, -EEXIST, -ENOENT or -EINVAL.
  int ctl(int op, int fd, uint32_t events, uint64_t data);
  // The descriptor was closed: its item goes (Linux drops it when the
  // last descriptor of its file closes).
  void forget(int fd) { items_.erase(fd); }
  const std::map<int, Item>& items() const { return items_; }

  // Up to `max` events for the items that are ready now, by
  // probe(fd) -> Readiness. With `consume` false nothing is reported
  // (blocks() asking whether to wait): EPOLLET and EPOLLONESHOT state and
  // the ready order's rotation are left as they are.
  template <class Probe>
  std::vector<Event> collect(Probe&& probe, size_t max, bool consume);

 private:
  std::map<int, Item> items_;  // by guest fd
  uint64_t next_order_ = 1;
};

template <class Probe>
std::vector<GuestEpoll::Event> GuestEpoll::collect(Probe&& probe, size_t max, bool consume) {
  struct Ready {
    uint64_t order;
    int fd;
    uint32_t events;
    uint64_t changes;
  };
  std::vector<Ready> ready;
  for (auto& [fd, it] : items_) {
    if (!it.armed) continue;
    const Readiness r = probe(fd);
    const uint32_t hit = r.mask & (it.events | kErr | kHup);
    if (!hit) {
      it.reported = false;
      it.ready_order = 0;
      continue;
    }
    if ((it.events & kEdge) && it.reported && r.changes == it.changes) continue;
    if (!it.ready_order) it.ready_order = next_order_++;
    ready.push_back({it.ready_order, fd, hit, r.changes});
  }
  std::sort(ready.begin(), ready.end(), [](const Ready& a, const Ready& b) { return a.order < b.order; });
  if (ready.size() > max) ready.resize(max);
  std::vector<Event> out;
  for (const Ready& r : ready) {
    Item& it = items_[r.fd];
    out.push_back({r.events, it.data});
    if (!consume) continue;
    if (it.events & kOneShot) it.armed = false;
    if (it.events & kEdge) {
      it.reported = true;
      it.changes = r.changes;
      it.ready_order = 0;
    } else {
      it.ready_order = next_order_++;  // level-triggered: to the back
    }
  }
  return out;
}

}  // namespace ttd::rec
