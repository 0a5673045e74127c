#include "tools/recorder/syscall_restart.h"

#include <sys/socket.h>
#include <sys/time.h>

#include "tools/recorder/linux_abi_constants.h"

namespace ttd::rec {

namespace {

// fcntl's waiting locks: F_SETLKW and F_OFD_SETLKW.
constexpr uint64_t kFSetlkw = 7, kFOfdSetlkw = 38;

// Calls that wait for SO_SNDTIMEO (connect too: sock_sndtimeo), not SO_RCVTIMEO.
bool sends(Sys sys) { return sys == Sys::Sendto || sys == Sys::Sendmsg || sys == Sys::Sendmmsg || sys == Sys::Connect; }

bool socket_has_timeout(int host, bool send) {
  timeval tv{};
  socklen_t len = sizeof tv;
  if (::getsockopt(host, SOL_SOCKET, send ? SO_SNDTIMEO : SO_RCVTIMEO, &tv, &len) != 0) return false;
  return tv.tv_sec != 0 || tv.tv_usec != 0;
}

AfterHandler futex_rule(const uint64_t a[6]) {
  const uint64_t cmd = a[1] & kFutexCmdMask;
  if (cmd == kFutexWait || cmd == kFutexWaitBitset)
    return a[3] ? AfterHandler::Eintr : AfterHandler::RestartIfSaRestart;
  if (cmd == kFutexLockPi || cmd == kFutexLockPi2 || cmd == kFutexWaitRequeuePi) return AfterHandler::Restart;
  return AfterHandler::Eintr;
}

}  // namespace

bool socket_call(Sys sys) {
  return sys == Sys::Accept || sys == Sys::Accept4 || sys == Sys::Recvfrom || sys == Sys::Recvmsg ||
         sys == Sys::Recvmmsg || sends(sys) || sys == Sys::Read || sys == Sys::Readv || sys == Sys::Write ||
         sys == Sys::Writev;
}

AfterHandler after_handler(Sys sys, const uint64_t a[6], int host_socket) {
  switch (sys) {
    case Sys::Read:
    case Sys::Readv:
    case Sys::Write:
    case Sys::Writev: {
      // On a socket, read and write wait as recv and send do.
      const bool send = sys == Sys::Write || sys == Sys::Writev;
      if (host_socket >= 0 && socket_has_timeout(host_socket, send)) return AfterHandler::Eintr;
      return AfterHandler::RestartIfSaRestart;
    }
    case Sys::Wait4:
    case Sys::Waitid:
    case Sys::Flock:
      return AfterHandler::RestartIfSaRestart;
    case Sys::Fcntl:
      return a[1] == kFSetlkw || a[1] == kFOfdSetlkw ? AfterHandler::RestartIfSaRestart : AfterHandler::Eintr;
    case Sys::Futex:
      return futex_rule(a);
    default:
      break;
  }
  if (!socket_call(sys)) return AfterHandler::Eintr;
  if (host_socket >= 0 && socket_has_timeout(host_socket, sends(sys))) return AfterHandler::Eintr;
  return AfterHandler::RestartIfSaRestart;
}

}  // namespace ttd::rec
