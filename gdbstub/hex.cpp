#include "gdbstub/hex.h"

namespace ttd::gdb {

int hex_digit_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::optional<uint64_t> parse_hex_u64(std::string_view field) {
  if (field.empty()) return std::nullopt;
  uint64_t value = 0;
  for (char c : field) {
    int d = hex_digit_value(c);
    if (d < 0) return std::nullopt;
    if (value >> 60) return std::nullopt;  // would overflow 64 bits
    value = (value << 4) | uint64_t(d);
  }
  return value;
}

std::optional<HexPair> parse_hex_pair(std::string_view field, char separator) {
  size_t sep = field.find(separator);
  if (sep == std::string_view::npos) return std::nullopt;
  auto a = parse_hex_u64(field.substr(0, sep));
  auto b = parse_hex_u64(field.substr(sep + 1));
  if (!a || !b) return std::nullopt;
  return HexPair{*a, *b};
}

std::optional<std::vector<uint8_t>> decode_hex_bytes(std::string_view hex) {
  if (hex.size() % 2) return std::nullopt;
  std::vector<uint8_t> out;
  out.reserve(hex.size() / 2);
  for (size_t i = 0; i < hex.size(); i += 2) {
    int hi = hex_digit_value(hex[i]), lo = hex_digit_value(hex[i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out.push_back(uint8_t(hi << 4 | lo));
  }
  return out;
}

std::optional<std::string> decode_hex_text(std::string_view hex) {
  auto bytes = decode_hex_bytes(hex);
  if (!bytes) return std::nullopt;
  return std::string(bytes->begin(), bytes->end());
}

void append_hex_bytes(std::string& out, std::span<const uint8_t> bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  out.reserve(out.size() + bytes.size() * 2);
  for (uint8_t b : bytes) {
    out.push_back(kDigits[b >> 4]);
    out.push_back(kDigits[b & 15]);
  }
}

std::string encode_hex_text(std::string_view text) {
  std::string out;
  append_hex_bytes(out, {reinterpret_cast<const uint8_t*>(text.data()), text.size()});
  return out;
}

std::string hex_number(uint64_t value) {
  static constexpr char kDigits[] = "0123456789abcdef";
  if (value == 0) return "0";
  std::string out;
  while (value) {
    out.insert(out.begin(), kDigits[value & 15]);
    value >>= 4;
  }
  return out;
}

}  // namespace ttd::gdb
