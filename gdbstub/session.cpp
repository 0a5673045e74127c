#include "gdbstub/session.h"

#include "gdbstub/packet_writer.h"

namespace ttd::gdb {

namespace {
// How many times in a row we resend a packet the client nacked before we
// stop believing it (a confused client must not make us loop).
constexpr int kMaxRetransmits = 5;
// Interrupt polls are a syscall; during a long run do at most one per ms.
constexpr auto kPollInterval = std::chrono::milliseconds(1);
}  // namespace

class GdbSession::Sink final : public ReplySink {
 public:
  explicit Sink(GdbSession& s) : s_(s) {}
  void send(std::string_view payload) override { s_.send_packet(payload); }

 private:
  GdbSession& s_;
};

GdbSession::GdbSession(Target& target, Transport& transport, SessionOptions options)
    : target_(target), transport_(transport), options_(std::move(options)), reader_(options_.packet_size) {
  state_.packet_size = options_.packet_size;
}

void GdbSession::send_raw(std::string_view bytes) {
  if (disconnected_) return;
  if (!transport_.write(bytes)) disconnected_ = true;
}

void GdbSession::send_packet(std::string_view payload) {
  if (options_.log) options_.log('>', payload);
  last_packet_ = frame_packet(payload);
  retransmits_ = 0;
  send_raw(last_packet_);
}

bool GdbSession::fill_reader(int timeout_ms) {
  uint8_t buffer[4096];
  ReadResult r = transport_.read(buffer, timeout_ms);
  if (r.status == ReadStatus::Closed) {
    disconnected_ = true;
    return false;
  }
  if (r.status == ReadStatus::Data) reader_.feed(std::span<const uint8_t>(buffer, r.bytes));
  return r.status == ReadStatus::Data;
}

bool GdbSession::interrupt_requested() {
  if (disconnected_) return true;
  auto now = std::chrono::steady_clock::now();
  if (now - last_poll_ >= kPollInterval) {
    last_poll_ = now;
    // Drain whatever is waiting; packets that arrive mid-run stay queued
    // for after the stop reply.
    while (fill_reader(0)) {
    }
  }
  if (reader_.take_interrupt()) {
    if (options_.log) options_.log('<', "<interrupt>");
    return true;
  }
  return disconnected_;
}

void GdbSession::handle(ReaderEvent& event) {
  using Kind = ReaderEvent::Kind;
  switch (event.kind) {
    case Kind::Interrupt:
      // Ctrl-C while nothing runs (it raced with our stop reply): nothing
      // to interrupt, the client already has a stop.
      if (options_.log) options_.log('<', "<interrupt while stopped>");
      return;
    case Kind::Nack:
      if (!state_.no_ack && !last_packet_.empty() && retransmits_ < kMaxRetransmits) {
        ++retransmits_;
        send_raw(last_packet_);
      }
      return;
    case Kind::BadChecksum:
      if (options_.log) options_.log('<', "<bad checksum>");
      if (!state_.no_ack) send_raw("-");
      return;
    case Kind::Oversize:
    case Kind::Malformed: {
      if (options_.log) options_.log('<', event.kind == Kind::Oversize ? "<oversize>" : "<malformed>");
      if (!state_.no_ack) send_raw("+");
      send_packet(error_reply(state_.client,
                              event.kind == Kind::Oversize ? ErrorCode::TooLong : ErrorCode::BadPacket,
                              event.kind == Kind::Oversize ? "packet longer than PacketSize"
                                                           : "packet ends in a dangling escape"));
      return;
    }
    case Kind::Packet: {
      seen_packet_ = true;
      if (options_.log) options_.log('<', event.payload);
      if (!state_.no_ack) send_raw("+");
      Sink sink(*this);
      HandlerContext ctx{target_, state_, sink, [this] { return interrupt_requested(); }};
      dispatch(ctx, event.payload);
      return;
    }
  }
}

SessionEnd GdbSession::run() {
  const auto started = std::chrono::steady_clock::now();
  while (true) {
    while (auto event = reader_.next()) {
      handle(*event);
      if (state_.end != SessionEnd::None) return state_.end;
      if (disconnected_) return SessionEnd::Disconnected;
    }
    if (disconnected_) return SessionEnd::Disconnected;
    int wait_ms = -1;
    if (!seen_packet_ && options_.first_packet_timeout_ms >= 0) {
      auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started);
      if (waited.count() >= options_.first_packet_timeout_ms) {
        if (options_.log) options_.log('<', "<no packet in time>");
        return SessionEnd::IdleTimeout;
      }
      wait_ms = int(options_.first_packet_timeout_ms - waited.count());
    }
    fill_reader(wait_ms);
  }
}

}  // namespace ttd::gdb
