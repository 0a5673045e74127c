// libFuzzer target: arbitrary bytes through the DAP frame reader, as
// `ttd dap`'s request reader uses it (a body that is not JSON is rejected,
// so the reader rescans it for the next header). Nothing may crash or
// hang, every call must make progress, and no body may exceed the limit.
//
// The first byte sets how many bytes each read() returns (1..256), so
// headers and bodies arrive split at every possible point. The channel
// reports "no more input for now" (a stalled client) once it is drained.
// Seeds: tests/fuzz/corpus/dap_framing/.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "dap/protocol/framing.h"

namespace {

struct MemoryChannel : ttd::dap::Channel {
  std::string_view in;
  size_t pos = 0, piece = 1;
  long read(void* buf, size_t n) override {
    size_t k = std::min({n, piece, in.size() - pos});
    std::memcpy(buf, in.data() + pos, k);
    pos += k;
    return long(k);
  }
  bool write_all(const void*, size_t) override { return true; }
  bool readable_within(int) override { return pos < in.size(); }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  MemoryChannel ch;
  ch.piece = size_t(data[0]) + 1;
  ch.in = std::string_view(reinterpret_cast<const char*>(data + 1), size - 1);
  ttd::dap::MessageReader reader(ch);
  // Every frame, good or bad, consumes at least one byte of input.
  size_t frames = 0;
  for (;;) {
    ttd::dap::Frame f = reader.next();
    if (f.kind == ttd::dap::Frame::Kind::End) break;
    if (++frames > 2 * size + 8) std::abort();
    if (f.kind == ttd::dap::Frame::Kind::BadHeader && f.reason.empty()) std::abort();
    if (f.kind != ttd::dap::Frame::Kind::Message) continue;
    if (f.body.size() > ttd::dap::kMaxMessageBytes || f.body.size() > size) std::abort();
    if (nlohmann::json::parse(f.body, nullptr, false).is_discarded()) reader.reject_last_body();
  }
  return 0;
}
