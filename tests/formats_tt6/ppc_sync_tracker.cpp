#include "ppc_sync_tracker.h"

#include "formats/tt6/tt6_layout.h"

namespace ttd::test {

using namespace fmt::tt6;

std::vector<SyncRecord> SyncTracker::before_instruction(uint32_t pc, uint32_t r3, uint32_t lr) {
  std::vector<SyncRecord> out;
  if (active_ && pc == active_->return_to) {
    if (active_->wait_kind && (active_->type != kSyncTryWait || r3 == 0))
      out.push_back(SyncRecord{active_->type, active_->sync_point, counts_[active_->sync_point]});
    active_.reset();
  }
  if (active_) return out;  // inside a traced function: internal calls are not traced
  auto signal = [&](uint32_t type) {
    uint32_t count = ++counts_[r3];
    out.push_back(SyncRecord{type, r3, count});
    active_ = Active{lr, false, type, r3};
  };
  auto wait = [&](uint32_t type) { active_ = Active{lr, true, type, r3}; };
  if (pc == e_.unlock || pc == e_.signal) signal(kSyncSignal);
  else if (pc == e_.broadcast) signal(kSyncBroadcastSignal);
  else if (pc == e_.lock || pc == e_.wait) wait(kSyncWait);
  else if (pc == e_.trylock) wait(kSyncTryWait);
  return out;
}

}  // namespace ttd::test
