#include "gdbstub/errors.h"

#include "gdbstub/hex.h"

namespace ttd::gdb {

std::string error_reply(const ClientFeatures& client, ErrorCode code, std::string_view message) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string number{'E', kDigits[uint8_t(code) >> 4], kDigits[uint8_t(code) & 15]};
  if (message.empty()) return number;
  if (client.error_strings) return number + ";" + encode_hex_text(message);
  if (client.error_message) {
    // The text goes raw into the packet: keep it to printable characters
    // that are neither framing nor run-length markers.
    std::string out = "E.";
    for (char c : message) {
      bool printable = c >= 0x20 && c < 0x7f && c != '$' && c != '#' && c != '}' && c != '*';
      out.push_back(printable ? c : '?');
    }
    return out;
  }
  return number;
}

}  // namespace ttd::gdb
