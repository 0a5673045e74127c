// What Linux does with a blocking call a signal handler interrupted, once
// the handler returns (arch/x86/kernel/signal.c, handle_signal): the
// call's error code decides, and it depends on the call and its
// arguments, not only on SA_RESTART.
//   ERESTARTSYS            restarted with SA_RESTART, else EINTR: read,
//                          write, wait4, accept, connect, recv, send, an untimed
//                          futex wait, flock, F_SETLKW
//   ERESTARTNOINTR         restarted always: FUTEX_LOCK_PI, LOCK_PI2,
//                          WAIT_REQUEUE_PI (woken before the requeue)
//   ERESTART_RESTARTBLOCK  EINTR with a handler: a futex wait with a
//   / ERESTARTNOHAND       timeout, nanosleep, poll, select, epoll_wait,
//                          sigsuspend, pause (and anything not listed)
// A socket call restarts only if its socket has no SO_RCVTIMEO (receives,
// accept) or SO_SNDTIMEO (sends, connect) (sock_intr_errno).
#pragma once
#include <cstdint>

#include "tools/recorder/syscall_table.h"

namespace ttd::rec {

enum class AfterHandler : uint8_t { Eintr, RestartIfSaRestart, Restart };

// `host_socket`: the host fd of the call's socket (a[0]) when it is one,
// else -1; its timeouts are read from the host (a read or write of a
// socket waits as recv and send do).
AfterHandler after_handler(Sys sys, const uint64_t a[6], int host_socket);

// Whether the call may work on a socket given as its first argument.
bool socket_call(Sys sys);

}  // namespace ttd::rec
