// Response side of the framing: "$<payload>#<checksum>". Payloads are
// passed in wire form: a handler that sends binary data escapes it first
// with escape_binary(). Run-length encoding is never produced (stricter
// clients have broken on RLE edge cases and bandwidth is not our limit).
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace ttd::gdb {

uint8_t packet_checksum(std::string_view payload);
std::string frame_packet(std::string_view payload);

// Escapes the bytes the framing reserves ('#', '$', '}') and '*', which a
// client would read as run-length encoding, as '}' + (byte ^ 0x20).
void append_escaped_binary(std::string& out, std::span<const uint8_t> bytes);
std::string escape_binary(std::string_view bytes);

}  // namespace ttd::gdb
