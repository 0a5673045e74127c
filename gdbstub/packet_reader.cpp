#include "gdbstub/packet_reader.h"

#include "gdbstub/hex.h"

namespace ttd::gdb {

std::optional<std::string> unescape_binary(std::string_view escaped) {
  std::string out;
  out.reserve(escaped.size());
  for (size_t i = 0; i < escaped.size(); ++i) {
    char c = escaped[i];
    if (c != '}') {
      out.push_back(c);
      continue;
    }
    if (++i == escaped.size()) return std::nullopt;
    out.push_back(char(uint8_t(escaped[i]) ^ 0x20));
  }
  return out;
}

PacketReader::PacketReader(size_t max_payload) : max_payload_(max_payload) {}

void PacketReader::start_packet() {
  state_ = State::Payload;
  raw_.clear();
  sum_ = 0;
  oversize_ = false;
}

void PacketReader::push(ReaderEvent event) {
  // Only reachable while nobody drains the queue (a resume that never polls
  // for packets); interrupts are kept so Ctrl-C is never lost.
  if (events_.size() >= kMaxQueuedEvents && event.kind != ReaderEvent::Kind::Interrupt) return;
  events_.push_back(std::move(event));
}

void PacketReader::finish_packet(uint8_t received_sum) {
  state_ = State::Idle;
  using Kind = ReaderEvent::Kind;
  if (checksum_high_ < 0 || received_sum != sum_) {
    push({Kind::BadChecksum, {}});
  } else if (oversize_) {
    push({Kind::Oversize, {}});
  } else if (auto payload = unescape_binary(raw_)) {
    push({Kind::Packet, std::move(*payload)});
  } else {
    push({Kind::Malformed, {}});
  }
  raw_.clear();
  raw_.shrink_to_fit();  // a huge packet must not pin its buffer forever
}

void PacketReader::feed(std::span<const uint8_t> bytes) {
  for (uint8_t b : bytes) {
    switch (state_) {
      case State::Idle:
        if (b == '$') start_packet();
        else if (b == 0x03) push({ReaderEvent::Kind::Interrupt, {}});
        else if (b == '-') push({ReaderEvent::Kind::Nack, {}});
        // '+' and anything else between packets is ignored.
        break;
      case State::Payload:
        if (b == '#') {
          state_ = State::ChecksumHigh;
        } else if (b == '$') {
          start_packet();
        } else {
          sum_ = uint8_t(sum_ + b);
          if (raw_.size() < max_payload_) raw_.push_back(char(b));
          else oversize_ = true;
        }
        break;
      case State::ChecksumHigh:
        checksum_high_ = hex_digit_value(char(b));
        state_ = State::ChecksumLow;
        break;
      case State::ChecksumLow: {
        int low = hex_digit_value(char(b));
        if (low < 0) checksum_high_ = -1;
        finish_packet(uint8_t(checksum_high_ < 0 ? 0 : (checksum_high_ << 4 | low)));
        break;
      }
    }
  }
}

std::optional<ReaderEvent> PacketReader::next() {
  if (events_.empty()) return std::nullopt;
  ReaderEvent e = std::move(events_.front());
  events_.pop_front();
  return e;
}

bool PacketReader::take_interrupt() {
  for (auto it = events_.begin(); it != events_.end(); ++it) {
    if (it->kind == ReaderEvent::Kind::Interrupt) {
      events_.erase(it);
      return true;
    }
  }
  return false;
}

}  // namespace ttd::gdb
