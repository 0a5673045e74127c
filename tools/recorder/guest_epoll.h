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
//
// An item is keyed as Linux keys it, by (open file, fd number): it stays
// while any descriptor of its open file is open, even after its own fd
// is closed (epoll(7), Q6), and goes with the last (forget()). A set can
// hold another set (nested epoll); nest_error() says whether one more
// such edge is allowed.
#pragma once
#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
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
  // An item's key: the open file (GuestFd::file, shared by dups) and the
  // fd number the guest added it by.
  struct Key {
    uint64_t file = 0;
    int fd = -1;
    auto operator<=>(const Key&) const = default;
  };
  struct Item {
    uint32_t events = 0;  // as the guest asked (with EPOLLET / EPOLLONESHOT)
    uint64_t data = 0;
    bool armed = true;         // false: a reported EPOLLONESHOT item, until MOD
    bool reported = false;     // EPOLLET: reported and not seen unready since
    uint64_t changes = 0;      // EPOLLET: the file's changes when last reported
    uint64_t ready_order = 0;  // 0: not on the ready list; else its place
    std::weak_ptr<const GuestEpoll> nested;  // the item is this set (nested epoll)
  };

  // Linux's EPOLL_MAX_NESTS: the most set-in-set edges a chain may have
  // (so 5 sets deep).
  static constexpr int kMaxNests = 4;

  // EPOLL_CTL_ADD / MOD / DEL on `key` (the caller has checked the
  // descriptors, and nest_error() for a set): 0, -EEXIST, -ENOENT or
  // -EINVAL. `nested`: the set the item is, when it is one.
  int ctl(int op, Key key, uint32_t events, uint64_t data, std::weak_ptr<const GuestEpoll> nested = {});
  // The last descriptor of `file` was closed: its items go.
  void forget(uint64_t file) { std::erase_if(items_, [&](const auto& kv) { return kv.first.file == file; }); }
  const std::map<Key, Item>& items() const { return items_; }

  // Whether `inner` may go into `outer`: -ELOOP when outer can be reached
  // from inner (a loop) or the longest chain through the new edge would
  // pass kMaxNests; `all` is every set there is (to find outer's parents).
  static int nest_error(const GuestEpoll& outer, const GuestEpoll& inner, const std::vector<const GuestEpoll*>& all);
  // ADDs and MODs so far: part of an epoll fd's change count (Linux wakes
  // an outer set when one puts a ready item on the ready list).
  uint64_t ctl_changes() const { return ctl_changes_; }

  // Up to `max` events for the items that are ready now, by
  // probe(key) -> Readiness. With `consume` false nothing is reported
  // (blocks() asking whether to wait): EPOLLET and EPOLLONESHOT state and
  // the ready order's rotation are left as they are.
  template <class Probe>
  std::vector<Event> collect(Probe&& probe, size_t max, bool consume);

 private:
  std::map<Key, Item> items_;
  uint64_t next_order_ = 1;
  uint64_t ctl_changes_ = 0;
};

template <class Probe>
std::vector<GuestEpoll::Event> GuestEpoll::collect(Probe&& probe, size_t max, bool consume) {
  struct Ready {
    uint64_t order;
    Key key;
    uint32_t events;
    uint64_t changes;
  };
  std::vector<Ready> ready;
  for (auto& [key, it] : items_) {
    if (!it.armed) continue;
    const Readiness r = probe(key);
    const uint32_t hit = r.mask & (it.events | kErr | kHup);
    if (!hit) {
      it.reported = false;
      it.ready_order = 0;
      continue;
    }
    if ((it.events & kEdge) && it.reported && r.changes == it.changes) continue;
    if (!it.ready_order) it.ready_order = next_order_++;
    ready.push_back({it.ready_order, key, hit, r.changes});
  }
  std::sort(ready.begin(), ready.end(), [](const Ready& a, const Ready& b) { return a.order < b.order; });
  if (ready.size() > max) ready.resize(max);
  std::vector<Event> out;
  for (const Ready& r : ready) {
    Item& it = items_[r.key];
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
