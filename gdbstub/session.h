// One debugger connection: reads packets from a Transport, acks them until
// no-ack mode, dispatches them against a Target and writes the replies,
// until the client detaches, kills or disconnects. While a resume runs the
// target's interrupt check polls the transport, so a Ctrl-C (0x03) or a
// vanished client stops the run.
//
// Bad input never ends the session: a bad checksum is answered with '-',
// an oversize or malformed packet with an E reply, garbage between packets
// is skipped; only EOF, a failed write, D, vKill and k end it, or a
// connection that never sends a packet (first_packet_timeout_ms): an idle
// socket must not hold one of the server's few client slots forever.
#pragma once
#include <chrono>
#include <functional>
#include <string>
#include <string_view>

#include "gdbstub/dispatcher.h"
#include "gdbstub/packet_reader.h"
#include "gdbstub/session_state.h"
#include "gdbstub/target.h"
#include "gdbstub/transport.h"

namespace ttd::gdb {

struct SessionOptions {
  size_t packet_size = kDefaultPacketSize;
  // How long a new connection may take to send its first well-formed
  // packet (gdb and lldb send qSupported at once); -1: no limit. After
  // that the client may sit idle as long as it likes.
  int first_packet_timeout_ms = -1;
  // Optional packet log: direction '<' (from client) or '>' (to client) and
  // the payload (or an event name such as "<interrupt>").
  std::function<void(char direction, std::string_view text)> log;
};

class GdbSession {
 public:
  GdbSession(Target& target, Transport& transport, SessionOptions options = {});

  // Serves until the session ends; returns why.
  SessionEnd run();
  const SessionState& state() const { return state_; }

 private:
  class Sink;
  void handle(ReaderEvent& event);
  void send_packet(std::string_view payload);
  void send_raw(std::string_view bytes);
  bool interrupt_requested();
  bool fill_reader(int timeout_ms);

  Target& target_;
  Transport& transport_;
  SessionOptions options_;
  SessionState state_;
  PacketReader reader_;
  std::string last_packet_;  // framed, for a '-' retransmit
  int retransmits_ = 0;
  bool disconnected_ = false;
  bool seen_packet_ = false;
  std::chrono::steady_clock::time_point last_poll_{};
};

}  // namespace ttd::gdb
