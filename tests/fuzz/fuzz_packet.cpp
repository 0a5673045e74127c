// libFuzzer target: arbitrary bytes through the RSP packet reader and the
// dispatcher, against the in-memory FakeTarget. Nothing may crash, hang or
// grow without bound.
//
// The first byte picks the mode (its low bit, so mutations flip it freely):
//   odd  ('W...'): the rest is raw wire bytes, framed or not, checksums and
//                  all, fed to the PacketReader; every packet it yields is
//                  dispatched.
//   even ('L...'): the rest is newline-separated packet payloads, dispatched
//                  directly (so the fuzzer reaches the handlers without
//                  having to guess checksums). Each payload also makes the
//                  escape + frame -> reader round trip, which must return it
//                  unchanged.
// Seeds: tests/fuzz/corpus/packet/ (real gdb 13 and lldb-16 traffic).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "gdbstub/dispatcher.h"
#include "gdbstub/packet_reader.h"
#include "gdbstub/packet_writer.h"
#include "gdbstub/testing/fake_target.h"

namespace {

using namespace ttd::gdb;

struct CountingSink : ReplySink {
  size_t packets = 0;
  size_t max_packet_size = 0;
  void send(std::string_view payload) override {
    ++packets;
    if (payload.size() > max_packet_size) max_packet_size = payload.size();
  }
};

void check_round_trip(std::string_view payload) {
  PacketReader reader(payload.size() * 2 + 16);
  reader.feed(frame_packet(escape_binary(payload)));
  auto event = reader.next();
  if (!event || event->kind != ReaderEvent::Kind::Packet || event->payload != payload) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  bool wire_mode = data[0] & 1;
  std::string_view input(reinterpret_cast<const char*>(data + 1), size - 1);

  testing::FakeTarget target;
  SessionState state;
  state.packet_size = 4096;
  CountingSink sink;
  PacketReader reader(state.packet_size);
  int polls = 0;
  // Interrupt after a few polls, or when the input queued a 0x03.
  HandlerContext ctx{target, state, sink, [&] { return ++polls > 16 || reader.take_interrupt(); }};

  if (wire_mode) {
    reader.feed(input);
    while (auto event = reader.next()) {
      if (event->kind == ReaderEvent::Kind::Packet) dispatch(ctx, event->payload);
      if (state.end != SessionEnd::None) break;
    }
  } else {
    while (!input.empty() && state.end == SessionEnd::None) {
      size_t newline = input.find('\n');
      std::string_view payload = input.substr(0, newline);
      check_round_trip(payload);
      dispatch(ctx, payload);
      input = newline == std::string_view::npos ? std::string_view{} : input.substr(newline + 1);
    }
  }
  // Replies must respect the PacketSize we advertise (qRcmd output aside,
  // which is chunked well below it).
  if (sink.max_packet_size > state.packet_size) std::abort();
  return 0;
}
