// Hex and number helpers for RSP fields. Every parser here is total: bad
// input (empty, a non-hex digit, overflow) yields nullopt, never a throw,
// so a handler can turn it into an E03 reply.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ttd::gdb {

// Value of one hex digit, or -1.
int hex_digit_value(char c);

// A whole field of hex digits as an unsigned number (at most 16 digits of
// value; leading zeros allowed). nullopt when empty, non-hex or too large.
std::optional<uint64_t> parse_hex_u64(std::string_view field);

// Splits "a,b" (or with another separator) into two hex numbers.
struct HexPair { uint64_t first = 0, second = 0; };
std::optional<HexPair> parse_hex_pair(std::string_view field, char separator = ',');

// Pairs of hex digits to bytes ("48690a" -> "Hi\n"); nullopt on odd length
// or a non-hex digit.
std::optional<std::vector<uint8_t>> decode_hex_bytes(std::string_view hex);
std::optional<std::string> decode_hex_text(std::string_view hex);

// Bytes to lowercase hex pairs, appended to out.
void append_hex_bytes(std::string& out, std::span<const uint8_t> bytes);
std::string encode_hex_text(std::string_view text);

// A number as lowercase hex without leading zeros ("0" for zero).
std::string hex_number(uint64_t value);

}  // namespace ttd::gdb
