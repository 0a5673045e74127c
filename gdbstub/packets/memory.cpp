// m (hex) and x (raw binary) memory reads; M / X writes are refused.
//
// Unknown bytes cannot be sent in either form (gdb rejects 'x' digits in an
// m reply). m returns the known prefix of the range: a short reply is a legal
// partial read, and the client's follow-up read of the unknown byte gets E14
// ("Cannot access memory at address ...").
//
// x answers all of the range or E14, never a prefix: lldb 16 fills its
// 512-byte memory-cache lines with x, and its MemoryCache::Read mishandles a
// short line (fixed in LLVM 17, D145624): it copied past the bytes it got and
// crashed on a Tenet trace whose stack line was only partly known.
//
// x: only lldb sends it to us. lldb < 21 probes "x0,0" and, on OK, uses x
// with a raw reply (no 'b' prefix); LLDB 21+ does the same when the stub does
// not advertise binary-upload+ (we never do; gdb >= 16 would then expect the
// 'b' form). So: "x<addr>,0" -> OK, otherwise escaped raw bytes.
// Spec: the GDB manual, "Packets" (m, x, M, X); lldb's x form is in
// docs/notes/rsp-clients.md.
#include <algorithm>

#include "gdbstub/hex.h"
#include "gdbstub/packet_writer.h"
#include "gdbstub/packets/handlers.h"
#include "gdbstub/packets/thread_select.h"

namespace ttd::gdb::packets {

namespace {

// Reads up to `length` bytes (capped by `max`) and returns the known
// prefix; sends the error and returns nullopt when there is none, or, with
// `whole`, when any byte of the (capped) range is unknown.
std::optional<std::vector<uint8_t>> read_known_prefix(HandlerContext& ctx, std::string_view args, uint64_t max,
                                                      bool whole = false) {
  SuffixSplit split = split_thread_suffix(args);
  auto range = parse_hex_pair(split.body);
  if (!range) {
    ctx.error(ErrorCode::BadPacket, "malformed address,length");
    return std::nullopt;
  }
  auto tid = thread_for_state_access(ctx, split);
  if (!tid) return std::nullopt;
  uint64_t addr = range->first;
  if (range->second == 0) {
    ctx.error(ErrorCode::BadPacket, "zero-length read");
    return std::nullopt;
  }
  // Bytes left up to the top of the address space (no wrap-around).
  uint64_t room = addr == 0 ? ~uint64_t(0) : ~uint64_t(0) - addr + 1;
  uint64_t length = std::min({range->second, max, room});
  std::vector<uint8_t> data(length), known(length);
  Status st = ctx.target.read_memory(*tid, addr, data, known);
  size_t n = 0;
  if (st) {
    while (n < length && known[n]) ++n;
  }
  if (n == 0 || (whole && n < length)) {
    ctx.error(ErrorCode::MemoryUnreadable);
    return std::nullopt;
  }
  data.resize(n);
  return data;
}

bool is_hex(uint8_t c) { return hex_digit_value(char(c)) >= 0; }

// Raw x data that lldb's reply classifier would mistake for something else
// ("OK", "+", "-", "E<hex><hex>" alone or followed by ";<hex...>") is cut
// to a prefix it reads as data. Returns 0 when no prefix is safe.
size_t unambiguous_length(const std::vector<uint8_t>& d) {
  size_t n = d.size();
  if (n == 1 && (d[0] == '+' || d[0] == '-')) return 0;
  if (n == 2 && d[0] == 'O' && d[1] == 'K') return 1;
  if (n >= 3 && d[0] == 'E' && is_hex(d[1]) && is_hex(d[2])) {
    bool looks_like_error = n == 3;
    if (n > 3 && d[3] == ';') {
      looks_like_error = true;
      for (size_t i = 4; i < n; ++i) looks_like_error = looks_like_error && is_hex(d[i]);
    }
    if (looks_like_error) return 2;
  }
  return n;
}

}  // namespace

void read_memory_hex(HandlerContext& ctx, std::string_view args) {
  auto data = read_known_prefix(ctx, args, (ctx.state.packet_size - 4) / 2);
  if (!data) return;
  std::string out;
  append_hex_bytes(out, *data);
  ctx.reply(out);
}

void read_memory_binary(HandlerContext& ctx, std::string_view args) {
  auto range = parse_hex_pair(split_thread_suffix(args).body);
  if (range && range->second == 0) return ctx.ok();  // lldb's capability probe
  auto data = read_known_prefix(ctx, args, (ctx.state.packet_size - 4) / 2, /*whole=*/true);
  if (!data) return;
  size_t n = unambiguous_length(*data);
  if (n == 0) return ctx.error(ErrorCode::MemoryUnreadable);
  std::string out;
  append_escaped_binary(out, std::span<const uint8_t>(data->data(), n));
  ctx.reply(out);
}

void write_memory(HandlerContext& ctx, std::string_view) {
  ctx.error(ErrorCode::ReadOnly, "memory cannot be changed: this is a recorded trace");
}

}  // namespace ttd::gdb::packets
