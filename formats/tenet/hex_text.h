// Hexadecimal text as Tenet traces spell it. Numbers follow Python's
// int(text, 16), which is what Tenet itself parses with: an optional 0x/0X
// prefix, digits of either case, single underscores between digits. Byte
// strings follow binascii.unhexlify: pairs of digits, nothing else.
#pragma once
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace ttd::fmt::tenet {

enum class HexStatus : uint8_t {
  Ok,
  Empty,      // no digits at all
  BadDigit,   // a character that is not a hex digit (or a misplaced '_')
  TooLarge,   // more significant bits than the destination holds
  OddLength,  // byte string with an odd number of digits
};

// Parses a number into `out` as little-endian bytes (out.size() bytes, the
// high bytes zero). TooLarge when the value needs more than 8*out.size() bits.
HexStatus parse_hex_number_le(std::string_view text, std::span<uint8_t> out);

// Parses a number of at most 64 bits.
HexStatus parse_hex_u64(std::string_view text, uint64_t& out);

// Appends the bytes spelled by `text` ("0a1b...") to out.
HexStatus parse_hex_bytes(std::string_view text, std::vector<uint8_t>& out);

// Words for error messages.
const char* hex_status_text(HexStatus s);

}  // namespace ttd::fmt::tenet
