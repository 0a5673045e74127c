#include "tools/recorder/guest_signals.h"

#include <cstring>

namespace ttd::rec {

namespace {

// Linux's SYNCHRONOUS_MASK: faults go before anything else pending.
constexpr uint64_t kSynchronous = (uint64_t(1) << (kSigSegv - 1)) | (uint64_t(1) << (kSigBus - 1)) |
                                  (uint64_t(1) << (kSigIll - 1)) | (uint64_t(1) << (kSigTrap - 1)) |
                                  (uint64_t(1) << (kSigFpe - 1)) | (uint64_t(1) << (31 - 1)) /*SIGSYS*/;

int lowest(uint64_t set) { return __builtin_ctzll(set) + 1; }

}  // namespace

SigAction SigAction::parse(std::span<const uint8_t> raw) {
  SigAction a;
  if (raw.size() < 32) return a;
  std::memcpy(&a.handler, raw.data(), 8);
  std::memcpy(&a.flags, raw.data() + 8, 8);
  std::memcpy(&a.restorer, raw.data() + 16, 8);
  std::memcpy(&a.mask, raw.data() + 24, 8);
  return a;
}

DefaultAction default_action(int sig) {
  switch (sig) {
    case kSigChld:
    case kSigCont:
    case 23:  // SIGURG
    case 28:  // SIGWINCH
      return DefaultAction::Ignore;
    default: return DefaultAction::Terminate;
  }
}

void SigInfo::encode(uint8_t out[128]) const {
  std::memset(out, 0, 128);
  std::memcpy(out, &signo, 4);
  std::memcpy(out + 8, &code, 4);
  if (fault) {
    std::memcpy(out + 16, &addr, 8);
    return;
  }
  std::memcpy(out + 16, &pid, 4);
  std::memcpy(out + 20, &uid, 4);
  if (code == kTimer || code == kQueue) std::memcpy(out + 24, &value, 8);
  else std::memcpy(out + 24, &status, 4);
}

void GuestSignals::add(Pending& p, const SigInfo& info) {
  if (info.signo <= 0 || info.signo > 64) return;
  if (p.bits & sig_bit(info.signo)) return;  // not queued: merged into the pending one
  p.bits |= sig_bit(info.signo);
  p.info[info.signo] = info;
  ++pending_count_;
}

void GuestSignals::raise_thread(uint32_t thread, const SigInfo& info) { add(threads_[thread].pending, info); }

void GuestSignals::raise_process(const SigInfo& info) { add(process_, info); }

uint64_t GuestSignals::pending(uint32_t thread) const {
  return threads_.at_or_empty(thread).pending.bits | process_.bits;
}

std::optional<SigInfo> GuestSignals::dequeue(uint32_t thread, uint64_t set) {
  set &= pending(thread);
  if (!set) return std::nullopt;
  // Linux: the thread's own queue first, then the shared one; within each
  // the synchronous signals, then the lowest number.
  auto take = [&](Pending& p) -> std::optional<SigInfo> {
    uint64_t s = p.bits & set;
    if (!s) return std::nullopt;
    const int sig = lowest((s & kSynchronous) ? (s & kSynchronous) : s);
    p.bits &= ~sig_bit(sig);
    --pending_count_;
    SigInfo info = p.info[sig];
    p.info.erase(sig);
    return info;
  };
  if (auto it = threads_.find(thread); it != threads_.end())
    if (auto info = take(it->second.pending)) return info;
  return take(process_);
}

void GuestSignals::drop_thread(uint32_t thread) {
  if (auto it = threads_.find(thread); it != threads_.end()) {
    pending_count_ -= size_t(__builtin_popcountll(it->second.pending.bits));
    threads_.erase(it);
  }
}

void GuestSignals::keep_only(uint32_t thread) {
  // fork: the child starts with nothing pending (the mask and the
  // alternate stack are inherited).
  Thread t = threads_[thread];
  t.pending = {};
  t.interrupted = false;
  t.saved_mask.reset();
  t.wait_set = 0;
  threads_.clear();
  threads_[thread] = t;
  process_ = {};
  pending_count_ = 0;
}

}  // namespace ttd::rec
