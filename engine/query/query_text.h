// The text forms of query arguments shared by every front end (the ttd
// CLI, the stub's monitor commands): numbers, address ranges, pc ranges.
// Errors name the argument and show what was expected.
#pragma once
#include <cstdint>
#include <string>
#include <utility>

#include "engine/query/query_types.h"
#include "engine/trace.h"

namespace ttd::query {

// Decimal or 0x-hex; the whole string must be the number.
Result<uint64_t> parse_number(const std::string& text, const std::string& what);
// "ADDR:LEN" (each decimal or 0x-hex), non-empty, not wrapping.
Result<AddressRange> parse_address_range(const std::string& text, const std::string& what = "--mem");
// "ADDR" (one pc) or "ADDR:LEN" -> [lo, hi); hi == 0 means the top of the space.
Result<std::pair<uint64_t, uint64_t>> parse_pc_range(const std::string& text, const std::string& what = "--pc");

// The window arguments every history command takes, as text ("" = not
// given): --from, --to, --at (the starting point: the window's lower end
// forwards, its upper end backwards), --backward, --resume.
struct WindowArgs {
  std::string from, to, at, resume;
  bool backward = false;
};
Result<QueryStart> resolve_window_args(const Trace& t, const WindowArgs& a);

std::string hex(uint64_t v);                       // 0x1f
std::string hex_bytes(const uint8_t* p, size_t n); // 1f00ab

}  // namespace ttd::query
