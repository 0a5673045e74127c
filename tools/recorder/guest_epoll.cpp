#include "tools/recorder/guest_epoll.h"

#include <cerrno>

namespace ttd::rec {

int GuestEpoll::ctl(int op, int fd, uint32_t events, uint64_t data) {
  if (op == kMod && (events & kExclusive)) return -EINVAL;  // before ENOENT, as Linux
  auto it = items_.find(fd);
  switch (op) {
    case kAdd:
      if (it != items_.end()) return -EEXIST;
      // Ready items go on the ready list in the order they were added.
      items_[fd] = Item{events, data, true, false, 0, next_order_++};
      return 0;
    case kMod:
      if (it == items_.end()) return -ENOENT;
      if (it->second.events & kExclusive) return -EINVAL;  // as Linux
      // A new interest re-arms a one-shot item and is a fresh edge.
      it->second = Item{events, data, true, false, 0, next_order_++};
      return 0;
    case kDel:
      if (it == items_.end()) return -ENOENT;
      items_.erase(it);
      return 0;
    default: return -EINVAL;
  }
}

}  // namespace ttd::rec
