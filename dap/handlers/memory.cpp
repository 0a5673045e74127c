// readMemory, disassemble.
#include "dap/handlers/handler_args.h"
#include "dap/protocol/base64.h"
#include "dap/stop_report.h"

namespace ttd::dap {

namespace {

constexpr int64_t kMaxReadBytes = 16 << 20;

Result<uint64_t> reference_arg(const json& args) {
  auto ref = req_string(args, "memoryReference");
  if (!ref) return ref.error();
  auto addr = parse_address(*ref);
  if (!addr) return make_error("arguments.memoryReference", "'" + *ref + "' is not an address");
  auto off = opt_int(args, "offset");
  if (!off) return off.error();
  return *addr + uint64_t(off->value_or(0));
}

Result<json> read_memory(RequestContext& c) {
  auto addr = reference_arg(c.args);
  if (!addr) return addr.error();
  auto count = req_int(c.args, "count");
  if (!count) return count.error();
  if (*count < 0 || *count > kMaxReadBytes) return bad_request("count must be between 0 and 16777216");
  std::vector<uint8_t> data(static_cast<size_t>(*count)), known(static_cast<size_t>(*count));
  if (auto s = c.state.debuggee->read_memory(c.state.stopped_tid, *addr, data, known); !s) return failed(s.error().to_string());
  // DAP can only say "the bytes after these are unreadable": return the
  // known prefix and how many unknown bytes follow it, so a client skips
  // them and asks again past them. Unknown bytes are never shown as 0.
  size_t prefix = 0;
  while (prefix < known.size() && known[prefix]) ++prefix;
  size_t unknown = 0;
  while (prefix + unknown < known.size() && !known[prefix + unknown]) ++unknown;
  json body = {{"address", hex_address(*addr)}, {"data", base64_encode({data.data(), prefix})}};
  if (unknown) body["unreadableBytes"] = unknown;
  return body;
}

Result<json> disassemble(RequestContext& c) {
  auto addr = reference_arg(c.args);
  if (!addr) return addr.error();
  auto count = req_int(c.args, "instructionCount");
  auto ioff = opt_int(c.args, "instructionOffset");
  if (!count) return count.error();
  if (!ioff) return ioff.error();
  if (*count < 0 || *count > int64_t(kMaxDisassembleCount))
    return bad_request("instructionCount must be between 0 and " + std::to_string(kMaxDisassembleCount));
  int64_t off = ioff->value_or(0);
  if (off < -kMaxDisassembleOffset || off > kMaxDisassembleOffset)
    return bad_request("instructionOffset must be between -" + std::to_string(kMaxDisassembleOffset) + " and " +
                       std::to_string(kMaxDisassembleOffset) + "; ask from an address nearer the code wanted");
  auto lines = c.state.debuggee->disassemble(c.state.stopped_tid, *addr, off, size_t(*count));
  if (!lines) return failed(lines.error().to_string());
  json out = json::array();
  std::string last_path;
  int last_line = -1;
  for (const auto& l : *lines) {
    json j = {{"address", hex_address(l.addr)}, {"instruction", l.text}};
    if (!l.bytes.empty()) j["instructionBytes"] = l.bytes;
    if (!l.symbol.empty()) j["symbol"] = l.symbol;
    if (l.invalid) j["presentationHint"] = "invalid";
    // Source positions only where they change, as the spec suggests.
    if (l.source && (l.source->path != last_path || l.source->line != last_line)) {
      j["location"] = source_json(l.source->path);
      j["line"] = client_line(c.state, l.source->line);
      last_path = l.source->path;
      last_line = l.source->line;
    }
    out.push_back(std::move(j));
  }
  return json{{"instructions", out}};
}

}  // namespace

void register_memory_handlers(Dispatcher& d) {
  d.add("readMemory", Needs::Launched, read_memory);
  d.add("disassemble", Needs::Launched, disassemble);
}

}  // namespace ttd::dap
