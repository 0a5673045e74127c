// Incremental RSP framing decoder. Bytes go in as they arrive (in any
// split); events come out in wire order:
//   $<payload>#<2 hex>  -> Packet (checksum ok; payload binary-unescaped),
//                          BadChecksum, Oversize (payload longer than the
//                          limit; its bytes were discarded, not buffered)
//                          or Malformed (a dangling '}' escape)
//   0x03 outside a packet -> Interrupt
//   '-' outside a packet  -> Nack (the client wants our last packet again)
// '+' acks and stray bytes between packets are dropped. A '$' inside a
// payload restarts the packet (the client resynchronised).
//
// The binary escape ('}' then byte^0x20) is undone for every packet: no
// text packet a client sends uses a raw '}', and X/vFile data needs it.
// Memory use is bounded by the payload limit plus a bounded event queue, so
// arbitrary input can neither crash the reader nor make it grow.
// Spec: the GDB manual, "Overview" of the Remote Protocol (framing,
// checksums, acks) and "Interrupts" (0x03).
#pragma once
#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace ttd::gdb {

struct ReaderEvent {
  enum class Kind : uint8_t { Packet, Interrupt, Nack, BadChecksum, Oversize, Malformed };
  Kind kind = Kind::Packet;
  std::string payload;  // Packet only
};

class PacketReader {
 public:
  explicit PacketReader(size_t max_payload);

  void feed(std::span<const uint8_t> bytes);
  void feed(std::string_view bytes) {
    feed(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
  }
  // The oldest pending event, removed from the queue.
  std::optional<ReaderEvent> next();
  // Removes the first pending Interrupt (wherever it is queued); true if
  // there was one. Used while a resume runs.
  bool take_interrupt();
  // True when a packet has started but not finished (for a disconnect
  // mid-packet: the partial packet is simply dropped).
  bool mid_packet() const { return state_ != State::Idle; }
  size_t queued() const { return events_.size(); }

  static constexpr size_t kMaxQueuedEvents = 1024;

 private:
  enum class State : uint8_t { Idle, Payload, ChecksumHigh, ChecksumLow };
  void start_packet();
  void finish_packet(uint8_t received_sum);
  void push(ReaderEvent event);

  size_t max_payload_;
  State state_ = State::Idle;
  std::string raw_;        // escaped payload as received (bounded)
  uint8_t sum_ = 0;        // running checksum of the payload bytes
  bool oversize_ = false;  // payload exceeded the limit; bytes discarded
  int checksum_high_ = 0;  // first checksum digit (or -1 when not hex)
  std::deque<ReaderEvent> events_;
};

// Undoes '}' escaping. nullopt when the input ends in a lone '}'.
std::optional<std::string> unescape_binary(std::string_view escaped);

}  // namespace ttd::gdb
