#include "formats/tenet/hex_text.h"
#include "state/byte_order.h"

#include <array>
#include <cstring>

namespace ttd::fmt::tenet {

namespace {

constexpr uint8_t kNotHex = 0xff;

constexpr std::array<uint8_t, 256> make_digit_table() {
  std::array<uint8_t, 256> t{};
  for (auto& v : t) v = kNotHex;
  for (int c = '0'; c <= '9'; ++c) t[size_t(c)] = uint8_t(c - '0');
  for (int c = 'a'; c <= 'f'; ++c) t[size_t(c)] = uint8_t(c - 'a' + 10);
  for (int c = 'A'; c <= 'F'; ++c) t[size_t(c)] = uint8_t(c - 'A' + 10);
  return t;
}
constexpr std::array<uint8_t, 256> kDigit = make_digit_table();

inline uint8_t digit(char c) { return kDigit[uint8_t(c)]; }

std::string_view strip_prefix(std::string_view s) {
  if (s.size() >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s.remove_prefix(2);
  return s;
}

// Checks Python's underscore rule on the digits after the prefix: an
// underscore may follow the prefix or a digit, and must be followed by a
// digit. Returns the number of digits, or -1 on a bad character.
long count_digits(std::string_view s, bool had_prefix) {
  long digits = 0;
  bool prev_digit = had_prefix;  // "0x_1f" is valid, "_1f" is not
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '_') {
      if (!prev_digit || i + 1 >= s.size() || digit(s[i + 1]) == kNotHex) return -1;
      prev_digit = false;
      continue;
    }
    if (digit(c) == kNotHex) return -1;
    prev_digit = true;
    ++digits;
  }
  return digits;
}

}  // namespace

HexStatus parse_hex_u64(std::string_view text, uint64_t& out) {
  std::string_view s = strip_prefix(text);
  // Fast path: plain digits, at most 16 of them.
  if (!s.empty() && s.size() <= 16) {
    uint64_t v = 0;
    size_t i = 0;
    for (; i < s.size(); ++i) {
      uint8_t d = digit(s[i]);
      if (d == kNotHex) break;
      v = (v << 4) | d;
    }
    if (i == s.size()) {
      out = v;
      return HexStatus::Ok;
    }
  }
  uint8_t le[8];
  HexStatus st = parse_hex_number_le(text, le);
  if (st != HexStatus::Ok) return st;
  out = load_le64(le);
  return HexStatus::Ok;
}

HexStatus parse_hex_number_le(std::string_view text, std::span<uint8_t> out) {
  std::string_view s = strip_prefix(text);
  long digits = count_digits(s, s.size() != text.size());
  if (digits < 0) return HexStatus::BadDigit;
  if (digits == 0) return HexStatus::Empty;
  std::memset(out.data(), 0, out.size());
  // Walk from the least significant digit, two per byte.
  size_t nibble = 0;
  for (size_t i = s.size(); i-- > 0;) {
    char c = s[i];
    if (c == '_') continue;
    uint8_t d = digit(c);
    size_t byte = nibble / 2;
    if (byte >= out.size()) {
      if (d != 0) return HexStatus::TooLarge;  // leading zeros may run past
    } else {
      out[byte] |= uint8_t(d << ((nibble & 1) * 4));
    }
    ++nibble;
  }
  return HexStatus::Ok;
}

HexStatus parse_hex_bytes(std::string_view text, std::vector<uint8_t>& out) {
  if (text.size() & 1) {
    for (char c : text)
      if (digit(c) == kNotHex) return HexStatus::BadDigit;
    return HexStatus::OddLength;
  }
  size_t base = out.size();
  out.resize(base + text.size() / 2);
  uint8_t* dst = out.data() + base;
  for (size_t i = 0; i < text.size(); i += 2) {
    uint8_t hi = digit(text[i]), lo = digit(text[i + 1]);
    if (hi == kNotHex || lo == kNotHex) {
      out.resize(base);
      return HexStatus::BadDigit;
    }
    *dst++ = uint8_t(hi << 4 | lo);
  }
  return HexStatus::Ok;
}

const char* hex_status_text(HexStatus s) {
  switch (s) {
    case HexStatus::Ok: return "ok";
    case HexStatus::Empty: return "no hex digits";
    case HexStatus::BadDigit: return "not a hex number";
    case HexStatus::TooLarge: return "value too large";
    case HexStatus::OddLength: return "odd number of hex digits";
  }
  return "?";
}

}  // namespace ttd::fmt::tenet
