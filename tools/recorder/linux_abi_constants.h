// Constants of the Linux system call ABI used by more than one of
// LinuxKernel's syscall files (values from the kernel's uapi headers, the
// same on x86-64 and AArch64), and the recorder's cap on one I/O call.
#pragma once
#include <cstdint>

namespace ttd::rec {

// The region name of a MAP_SHARED|MAP_ANONYMOUS mapping, as Linux shows it.
inline constexpr const char* kSharedAnonymousName = "/dev/zero (deleted)";

inline constexpr uint64_t kNanos = 1000000000;  // nanoseconds per second
inline constexpr uint64_t kTimerAbstime = 1;    // TIMER_ABSTIME
inline constexpr uint64_t kAtEmptyPath = 0x1000;

// clone(2) flags.
inline constexpr uint64_t kCloneVm = 0x100, kCloneFs = 0x200, kCloneFiles = 0x400, kCloneSighand = 0x800,
                          kCloneVfork = 0x4000, kCloneThread = 0x10000, kCloneSysvsem = 0x40000,
                          kCloneSettls = 0x80000, kCloneParentSettid = 0x100000, kCloneChildCleartid = 0x200000,
                          kCloneDetached = 0x400000, kCloneUntraced = 0x800000, kCloneChildSettid = 0x1000000;

// futex(2) commands: the op less FUTEX_PRIVATE_FLAG (128) and
// FUTEX_CLOCK_REALTIME (256).
enum FutexCmd : uint32_t {
  kFutexWait = 0, kFutexWake = 1, kFutexRequeue = 3, kFutexCmpRequeue = 4, kFutexWakeOp = 5,
  kFutexLockPi = 6, kFutexUnlockPi = 7, kFutexTrylockPi = 8, kFutexWaitBitset = 9, kFutexWakeBitset = 10,
  kFutexWaitRequeuePi = 11, kFutexCmpRequeuePi = 12, kFutexLockPi2 = 13,
};
inline constexpr uint32_t kFutexCmdMask = 127;
inline constexpr uint32_t kFutexClockRealtime = 256;

// The futex word of a PI or robust futex: FUTEX_WAITERS, FUTEX_OWNER_DIED
// and FUTEX_TID_MASK.
inline constexpr uint32_t kFutexWaiters = 0x80000000u, kFutexOwnerDied = 0x40000000u, kFutexTidMask = 0x3fffffffu;

// Bytes one read/write-like call moves at most; the guest loops for more,
// as after any short read or write.
inline constexpr uint64_t kMaxIo = 1 << 20;

}  // namespace ttd::rec
