#include "tools/recorder/guest_epoll.h"

#include <cerrno>

namespace ttd::rec {

int GuestEpoll::ctl(int op, Key key, uint32_t events, uint64_t data, std::weak_ptr<const GuestEpoll> nested) {
  if (op == kMod && (events & kExclusive)) return -EINVAL;  // before ENOENT, as Linux
  auto it = items_.find(key);
  switch (op) {
    case kAdd:
      if (it != items_.end()) return -EEXIST;
      // Ready items go on the ready list in the order they were added.
      items_[key] = Item{events, data, true, false, 0, next_order_++, std::move(nested)};
      ++ctl_changes_;
      break;
    case kMod:
      if (it == items_.end()) return -ENOENT;
      if (it->second.events & kExclusive) return -EINVAL;  // as Linux
      // A new interest re-arms a one-shot item and is a fresh edge.
      it->second = Item{events, data, true, false, 0, next_order_++, it->second.nested};
      ++ctl_changes_;
      break;
    case kDel:
      if (it == items_.end()) return -ENOENT;
      items_.erase(it);
      break;
    default: return -EINVAL;
  }
  return 0;
}

namespace {

// The most set-in-set edges below `e` (0: it holds no set), or -1 when
// `target` is among them (a loop). The chains are short: every edge was
// checked against kMaxNests when it was made.
int depth_below(const GuestEpoll& e, const GuestEpoll* target) {
  int deepest = 0;
  for (const auto& [key, item] : e.items()) {
    auto child = item.nested.lock();
    if (!child) continue;
    if (child.get() == target) return -1;
    const int d = depth_below(*child, target);
    if (d < 0) return -1;
    deepest = std::max(deepest, d + 1);
  }
  return deepest;
}

// The most set-in-set edges above `e`, among `all`.
int depth_above(const GuestEpoll& e, const std::vector<const GuestEpoll*>& all, int guard) {
  int deepest = 0;
  if (guard > GuestEpoll::kMaxNests + 1) return deepest;
  for (const GuestEpoll* parent : all)
    for (const auto& [key, item] : parent->items())
      if (item.nested.lock().get() == &e) deepest = std::max(deepest, 1 + depth_above(*parent, all, guard + 1));
  return deepest;
}

}  // namespace

int GuestEpoll::nest_error(const GuestEpoll& outer, const GuestEpoll& inner,
                           const std::vector<const GuestEpoll*>& all) {
  if (&outer == &inner) return -ELOOP;
  const int below = depth_below(inner, &outer);
  if (below < 0) return -ELOOP;
  return depth_above(outer, all, 0) + 1 + below > kMaxNests ? -ELOOP : 0;
}

}  // namespace ttd::rec
