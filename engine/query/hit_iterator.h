// A resumable iterator over any history query: fetches hits in batches
// (each batch a fresh, bounded scan that starts from the resume token of
// the last hit delivered), so callers (Python iterators, the stub's
// monitor commands) pull hits one at a time without holding a scan open.
#pragma once
#include <cstddef>
#include <deque>
#include <functional>
#include <optional>
#include <vector>

#include "state/error.h"

namespace ttd::query {

// Query must have `QueryStart start`; Hit must have `ResumeToken next`.
template <class Query, class Hit>
class HitIterator {
 public:
  using Fetch = std::function<Result<std::vector<Hit>>(const Query&, size_t limit)>;

  HitIterator(Query q, Fetch fetch, size_t batch = 4096) : q_(std::move(q)), fetch_(std::move(fetch)), batch_(batch) {}

  // The next hit, nullopt at the end, or the error that stopped the query.
  Result<std::optional<Hit>> next() {
    if (buf_.empty() && !done_) {
      auto r = fetch_(q_, batch_);
      if (!r) {
        done_ = true;
        return r.error();
      }
      if (r->size() < batch_) done_ = true;
      if (!r->empty()) q_.start.resume = r->back().next;
      for (auto& h : *r) buf_.push_back(std::move(h));
    }
    std::optional<Hit> out;
    if (buf_.empty()) return out;
    out.emplace(std::move(buf_.front()));
    buf_.pop_front();
    return out;
  }
  const Query& query() const { return q_; }

 private:
  Query q_;
  Fetch fetch_;
  size_t batch_;
  std::deque<Hit> buf_;
  bool done_ = false;
};

}  // namespace ttd::query
