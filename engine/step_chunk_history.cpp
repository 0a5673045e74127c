#include "engine/step_chunk_history.h"

#include <algorithm>

namespace ttd {

uint64_t& RegisterHistory::other_slot(uint32_t tidx, uint16_t reg) {
  last_tidx_ = tidx;
  for (size_t i = 0; i < in_use_; ++i)
    if (tables_[i].first == tidx) return (last_ = tables_[i].second.data())[reg];
  if (in_use_ < tables_.size()) {
    tables_[in_use_].first = tidx;
    std::fill(tables_[in_use_].second.begin(), tables_[in_use_].second.end(), 0);
  } else {
    tables_.emplace_back(tidx, std::vector<uint64_t>(2 * kPrior, 0));
  }
  last_ = tables_[in_use_++].second.data();  // stays valid: inner vectors move, their storage does not
  return last_[reg];
}

}  // namespace ttd
