// What one debugger connection negotiated and selected. Owned by the
// session, read and updated by the packet handlers.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "gdbstub/target.h"
#include "gdbstub/thread_id.h"

namespace ttd::gdb {

// Largest packet payload we accept, advertised as PacketSize. Clients size
// their m / qXfer requests from it; replies are kept within it as well.
inline constexpr size_t kDefaultPacketSize = 0x10000;

struct ClientFeatures {
  bool multiprocess = false;           // both sides said multiprocess+
  bool swbreak = false;                // client said swbreak+: report swbreak:
  bool hwbreak = false;                // client said hwbreak+: report hwbreak:
  bool error_message = false;          // gdb error-message+: "E.text" errors
  bool error_strings = false;          // lldb QEnableErrorStrings: "Exx;hex" errors
  bool thread_suffix = false;          // lldb QThreadSuffixSupported: ";thread:tid;"
  bool threads_in_stop_reply = false;  // lldb QListThreadsInStopReply
};

// IdleTimeout: the client sent no packet within SessionOptions::first_packet_timeout_ms.
enum class SessionEnd : uint8_t { None, Detached, Killed, Disconnected, IdleTimeout };

struct SessionState {
  size_t packet_size = kDefaultPacketSize;
  bool no_ack = false;
  ClientFeatures client;
  IdSel g_thread;  // Hg: registers and memory
  IdSel c_thread;  // Hc: the thread s / bs steps
  std::vector<Breakpoint> breakpoints;
  std::vector<Watchpoint> watchpoints;
  std::optional<StopReason> last_stop;
  // "monitor reverse on": c / s / vCont run backwards, for clients without
  // reverse packets (lldb < 21).
  bool reverse_mode = false;
  SessionEnd end = SessionEnd::None;
};

}  // namespace ttd::gdb
