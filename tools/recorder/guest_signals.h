// The guest's signal state as Linux keeps it: each thread's blocked mask,
// pending set and alternate stack, the process's pending set, and the
// siginfo of each pending signal (standard signals do not queue: a second
// SIGUSR1 while one is pending is merged into it). The actions themselves
// stay in LinuxKernel's raw sigaction table (what rt_sigaction stored);
// SigAction is their parsed form. Which signal goes first follows Linux
// (dequeue_signal: the thread's own set, then the process's; synchronous
// ones first, then the lowest number).
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <span>

namespace ttd::rec {

constexpr int kSigHup = 1, kSigIll = 4, kSigTrap = 5, kSigAbrt = 6, kSigBus = 7, kSigFpe = 8, kSigKill = 9,
              kSigUsr1 = 10, kSigSegv = 11, kSigPipe = 13, kSigAlrm = 14, kSigChld = 17, kSigCont = 18,
              kSigStop = 19;

inline uint64_t sig_bit(int sig) { return uint64_t(1) << (sig - 1); }
// SIGKILL and SIGSTOP can be neither blocked nor caught.
constexpr uint64_t kUnblockable = (uint64_t(1) << 8) | (uint64_t(1) << 18);

// struct sigaction as the kernel takes it: handler, flags, restorer, mask.
struct SigAction {
  static constexpr uint64_t kDfl = 0, kIgn = 1;
  static constexpr uint64_t kSigInfo = 4, kOnStack = 0x08000000, kRestart = 0x10000000, kNoDefer = 0x40000000,
                            kResetHand = 0x80000000, kRestorer = 0x04000000;
  uint64_t handler = kDfl, flags = 0, restorer = 0, mask = 0;
  static SigAction parse(std::span<const uint8_t> raw);  // 32 bytes
  bool has_handler() const { return handler != kDfl && handler != kIgn; }
};

// What Linux does with a signal nobody handles.
enum class DefaultAction : uint8_t { Terminate, Ignore };
DefaultAction default_action(int sig);

// siginfo_t's fields the recorder fills in (128 bytes on both 64-bit ABIs).
struct SigInfo {
  static constexpr int32_t kUser = 0, kKernel = 0x80, kQueue = -1, kTimer = -2, kTkill = -6;
  int32_t signo = 0, code = 0;
  // Kill-type: pid and uid; SIGCHLD adds status; faults: addr; kTimer
  // (POSIX timers): si_timerid in pid, si_overrun in uid, si_value in value;
  // kQueue (sigqueue): pid, uid and si_value.
  uint32_t pid = 0, uid = 0;
  uint64_t value = 0;
  int32_t status = 0;
  uint64_t addr = 0;
  bool fault = false;  // addr at offset 16 instead of pid/uid
  void encode(uint8_t out[128]) const;
};

// sigaltstack's stack_t.
struct AltStack {
  static constexpr int32_t kOnStack = 1, kDisable = 2;
  uint64_t sp = 0, size = 0;
  int32_t flags = kDisable;
  bool contains(uint64_t addr) const { return flags != kDisable && addr > sp && addr - sp <= size; }
};

class GuestSignals {
 public:
  uint64_t& mask(uint32_t thread) { return threads_[thread].mask; }
  AltStack& altstack(uint32_t thread) { return threads_[thread].altstack; }
  // Queues `info.signo` for the thread (tkill, tgkill, faults) or the
  // process (kill, SIGCHLD, timers); a signal already pending stays as it is.
  void raise_thread(uint32_t thread, const SigInfo& info);
  void raise_process(const SigInfo& info);
  // The signals pending for the thread: its own and the process's.
  uint64_t pending(uint32_t thread) const;
  // Pending and not blocked by the thread's mask.
  uint64_t deliverable(uint32_t thread) const { return pending(thread) & ~threads_.at_or_empty(thread).mask; }
  // Takes the signal Linux would take next from `set` (a subset of
  // pending(thread)); nullopt when `set` is empty.
  std::optional<SigInfo> dequeue(uint32_t thread, uint64_t set);
  uint64_t process_pending() const { return process_.bits; }
  // The queued siginfo of `sig` for `thread` (0: the process's), or null:
  // a POSIX timer counts its overruns in the one it queued.
  SigInfo* pending_info(uint32_t thread, int sig) {
    Pending& p = thread ? threads_[thread].pending : process_;
    auto it = p.info.find(sig);
    return it == p.info.end() ? nullptr : &it->second;
  }
  // Anything pending anywhere (the common answer, no, is one load).
  bool any_pending() const { return pending_count_ != 0; }
  // The thread exited: its own pending signals are gone.
  void drop_thread(uint32_t thread);
  // fork's child: only `thread` is left.
  void keep_only(uint32_t thread);

  // A parked thread woken to run a handler: its call ends with EINTR (or
  // is restarted, SA_RESTART) when it runs again.
  bool interrupted(uint32_t thread) const { return threads_.at_or_empty(thread).interrupted; }
  void set_interrupted(uint32_t thread, bool v) { threads_[thread].interrupted = v; }
  // rt_sigsuspend (and a fault's delivery): the mask the handler's frame
  // saves, when it is not the one in force.
  std::optional<uint64_t> suspended_mask(uint32_t thread) const { return threads_.at_or_empty(thread).saved_mask; }
  void set_suspended_mask(uint32_t thread, uint64_t m) { threads_[thread].saved_mask = m; }
  void clear_suspended_mask(uint32_t thread) { threads_[thread].saved_mask.reset(); }
  // rt_sigtimedwait: the signals a parked thread waits for (0: none).
  uint64_t wait_set(uint32_t thread) const { return threads_.at_or_empty(thread).wait_set; }
  void set_wait_set(uint32_t thread, uint64_t set) { threads_[thread].wait_set = set; }

 private:
  struct Pending {
    uint64_t bits = 0;
    std::map<int, SigInfo> info;
  };
  struct Thread {
    uint64_t mask = 0;
    Pending pending;
    AltStack altstack;
    bool interrupted = false;
    std::optional<uint64_t> saved_mask;
    uint64_t wait_set = 0;
  };
  struct Threads : std::map<uint32_t, Thread> {
    const Thread& at_or_empty(uint32_t n) const {
      static const Thread kNone;
      auto it = find(n);
      return it == end() ? kNone : it->second;
    }
  };
  void add(Pending& p, const SigInfo& info);
  Threads threads_;
  Pending process_;
  size_t pending_count_ = 0;  // signals pending, summed over the thread sets and the process's
};

}  // namespace ttd::rec
