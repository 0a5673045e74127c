#include "gdbstub/packet_writer.h"

namespace ttd::gdb {

uint8_t packet_checksum(std::string_view payload) {
  uint8_t sum = 0;
  for (char c : payload) sum = uint8_t(sum + uint8_t(c));
  return sum;
}

std::string frame_packet(std::string_view payload) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(payload.size() + 4);
  out.push_back('$');
  out.append(payload);
  out.push_back('#');
  uint8_t sum = packet_checksum(payload);
  out.push_back(kDigits[sum >> 4]);
  out.push_back(kDigits[sum & 15]);
  return out;
}

void append_escaped_binary(std::string& out, std::span<const uint8_t> bytes) {
  out.reserve(out.size() + bytes.size());
  for (uint8_t b : bytes) {
    if (b == '#' || b == '$' || b == '}' || b == '*') {
      out.push_back('}');
      out.push_back(char(b ^ 0x20));
    } else {
      out.push_back(char(b));
    }
  }
}

std::string escape_binary(std::string_view bytes) {
  std::string out;
  append_escaped_binary(out, {reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()});
  return out;
}

}  // namespace ttd::gdb
