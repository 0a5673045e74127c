// Which thread a packet is about: lldb's ";thread:<tid>;" suffix, else the
// Hg / Hc selection, else (for "any"/"all") the last reported thread or the
// target's current one.
#pragma once
#include <cstdint>
#include <optional>
#include <string_view>

#include "gdbstub/dispatcher.h"

namespace ttd::gdb::packets {

bool is_thread_alive(const HandlerContext& ctx, uint64_t tid);

// The last stopped thread while it is alive, else the target's current one.
uint64_t default_thread(const HandlerContext& ctx);

// A selection resolved to a live thread; nullopt when a specific thread is
// not alive.
std::optional<uint64_t> resolve_thread(const HandlerContext& ctx, IdSel sel);

struct SuffixSplit {
  std::string_view body;       // args without the suffix
  std::optional<IdSel> thread; // from ";thread:<id>;" if present
  bool malformed = false;      // a suffix whose id does not parse
};
// Splits off ";thread:<id>;" (trailing ';' optional). Accepted whether or not
// QThreadSuffixSupported was negotiated: an id the client sends is never
// ambiguous.
SuffixSplit split_thread_suffix(std::string_view args);

// Resolves the thread for g / p / m / x: suffix, else Hg. Sends E02 / E03
// and returns nullopt when it cannot.
std::optional<uint64_t> thread_for_state_access(HandlerContext& ctx, const SuffixSplit& split);

}  // namespace ttd::gdb::packets
