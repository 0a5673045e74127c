// Drives the dispatcher packet by packet against a FakeTarget and collects
// the reply payloads.
#pragma once
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "gdbstub/dispatcher.h"
#include "gdbstub/hex.h"
#include "gdbstub/testing/fake_target.h"

namespace ttd::gdb::test {

class CollectingSink : public ReplySink {
 public:
  void send(std::string_view payload) override { replies.emplace_back(payload); }
  std::vector<std::string> replies;
};

struct Harness {
  Harness() = default;
  explicit Harness(testing::FakeTarget t) : target(std::move(t)) {}

  testing::FakeTarget target;
  SessionState state;
  CollectingSink sink;
  InterruptCheck interrupt = [] { return false; };

  // All replies to one packet.
  std::vector<std::string> all(std::string_view packet) {
    sink.replies.clear();
    HandlerContext ctx{target, state, sink, interrupt};
    dispatch(ctx, packet);
    return sink.replies;
  }
  // The single reply to one packet.
  std::string one(std::string_view packet) {
    auto r = all(packet);
    REQUIRE_MESSAGE(r.size() == 1, "packet: " << std::string(packet));
    return r[0];
  }
  // Negotiates like gdb 13 does.
  void connect_as_gdb() {
    one("qSupported:multiprocess+;swbreak+;hwbreak+;qRelocInsn+;fork-events+;vfork-events+;exec-events+;"
        "vContSupported+;QThreadEvents+;no-resumed+;memory-tagging+;xmlRegisters=i386");
  }
  // Negotiates like lldb-16 does.
  void connect_as_lldb() {
    one("QStartNoAckMode");
    one("qSupported:xmlRegisters=i386,arm,mips,arc;multiprocess+;fork-events+;vfork-events+");
    one("QThreadSuffixSupported");
    one("QListThreadsInStopReply");
  }
};

// Little-endian hex of a 64-bit value ("0010000000000000" for 0x1000).
inline std::string le64(uint64_t v) {
  std::string out;
  for (int i = 0; i < 8; ++i) {
    uint8_t b = uint8_t(v >> (8 * i));
    append_hex_bytes(out, std::span<const uint8_t>(&b, 1));
  }
  return out;
}

}  // namespace ttd::gdb::test
