// DAP's base protocol: each message is a header block ("Content-Length: N"
// plus optional other fields, lines ending in \r\n, then an empty line)
// followed by N bytes of UTF-8 JSON.
//
// The reader never goes silent on bad input. A malformed frame (no or a
// non-numeric, negative or oversized Content-Length, an over-long header
// line or block, a body the consumer finds is not a message, a body that
// stops short of its Content-Length while the next header has already
// arrived) is reported as BadHeader, naming what was wrong and the byte
// offset where the frame started; the reader then resynchronises by
// scanning forwards for the next "Content-Length" and answers from there.
// Every resynchronisation moves forwards, so any input ends in End.
// Spec: the Debug Adapter Protocol specification, "Base Protocol".
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "dap/protocol/channel.h"

namespace ttd::dap {

// Largest body accepted; a larger Content-Length is a malformed frame.
constexpr size_t kMaxMessageBytes = 64u << 20;
// Longest header line, and longest header block, accepted.
constexpr size_t kMaxHeaderLineBytes = 1024;
constexpr size_t kMaxHeaderBytes = 8192;
// How long a body that stops short (with the next header already in it)
// may stall before it is declared short and the reader resynchronises.
constexpr int kShortBodyStallMs = 300;

struct Frame {
  enum class Kind : uint8_t { Message, BadHeader, End } kind = Kind::End;
  std::string body;     // Message: the JSON text
  std::string reason;   // BadHeader: what was wrong, with the byte offset
  uint64_t offset = 0;  // byte offset of the frame's header in the stream
};

class MessageReader {
 public:
  explicit MessageReader(Channel& ch) : ch_(ch) {}
  // The next message, a report of a malformed frame (after which reading
  // continues), or End when the input is closed.
  Frame next();
  // The consumer found the last Message's body is not a message (not
  // JSON): a Content-Length too short, say. Rescans from the start of that
  // body for the next header, so a request glued behind it is not lost.
  void reject_last_body();

 private:
  bool fill();  // reads more input; false at end
  Frame bad(uint64_t at, std::string why);
  // Drops input up to the next "Content-Length" (case-insensitive); false
  // at end of input.
  bool resynchronise();
  size_t find_header_start(size_t from) const;

  Channel& ch_;
  std::string buf_;
  size_t pos_ = 0;
  uint64_t dropped_ = 0;   // bytes erased from the front of buf_ (for offsets)
  size_t body_pos_ = std::string::npos;  // start of the last Message body in buf_
  bool resync_ = false;
  bool eof_ = false;
};

// "Content-Length: N\r\n\r\n" + body.
std::string frame_message(std::string_view body);

}  // namespace ttd::dap
