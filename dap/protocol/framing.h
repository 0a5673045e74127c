// DAP's base protocol: each message is a header block ("Content-Length: N"
// plus optional other fields, lines ending in \r\n, then an empty line)
// followed by N bytes of UTF-8 JSON. The reader recovers from bad headers
// by discarding them and looking for the next header block, so a client
// that sends garbage gets told, not disconnected.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

#include "dap/protocol/channel.h"

namespace ttd::dap {

// Largest body accepted; larger ones are refused (and skipped).
constexpr size_t kMaxMessageBytes = 64u << 20;

struct Frame {
  enum class Kind : uint8_t { Message, BadHeader, End } kind = Kind::End;
  std::string body;    // Message: the JSON text
  std::string reason;  // BadHeader: what was wrong
};

class MessageReader {
 public:
  explicit MessageReader(Channel& ch) : ch_(ch) {}
  // The next message, a report of a malformed header (after which reading
  // can continue), or End when the input is closed.
  Frame next();

 private:
  bool fill();  // reads more input; false at end
  Channel& ch_;
  std::string buf_;
  size_t pos_ = 0;
  bool eof_ = false;
};

// "Content-Length: N\r\n\r\n" + body.
std::string frame_message(std::string_view body);

}  // namespace ttd::dap
