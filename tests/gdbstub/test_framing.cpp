// Hex fields, thread ids, packet framing (reader and writer).
#include <doctest/doctest.h>

#include "gdbstub/hex.h"
#include "gdbstub/packet_reader.h"
#include "gdbstub/packet_writer.h"
#include "gdbstub/thread_id.h"

using namespace ttd::gdb;

namespace {

std::vector<ReaderEvent> drain(PacketReader& r) {
  std::vector<ReaderEvent> out;
  while (auto e = r.next()) out.push_back(std::move(*e));
  return out;
}

}  // namespace

TEST_CASE("hex fields parse strictly") {
  CHECK(parse_hex_u64("0") == 0u);
  CHECK(parse_hex_u64("DeadBeef") == 0xdeadbeefu);
  CHECK(parse_hex_u64("ffffffffffffffff") == ~uint64_t(0));
  CHECK(parse_hex_u64("00000000000000000001") == 1u);  // leading zeros are fine
  CHECK_FALSE(parse_hex_u64("10000000000000000"));      // 65 bits
  CHECK_FALSE(parse_hex_u64(""));
  CHECK_FALSE(parse_hex_u64("12g4"));
  CHECK_FALSE(parse_hex_u64("-1"));
  auto pair = parse_hex_pair("401000,200");
  REQUIRE(pair);
  CHECK(pair->first == 0x401000u);
  CHECK(pair->second == 0x200u);
  CHECK_FALSE(parse_hex_pair("401000"));
  CHECK_FALSE(parse_hex_pair("401000,"));
  CHECK_FALSE(parse_hex_pair(",4"));
  CHECK(decode_hex_text("6d6f6e") == "mon");
  CHECK_FALSE(decode_hex_text("6d6"));
  CHECK_FALSE(decode_hex_text("zz"));
  CHECK(encode_hex_text("Hi\n") == "48690a");
  CHECK(hex_number(0) == "0");
  CHECK(hex_number(0x401000) == "401000");
}

TEST_CASE("thread ids in both forms") {
  auto bare = parse_thread_sel("1a");
  REQUIRE(bare);
  CHECK_FALSE(bare->pid);
  CHECK(bare->tid == IdSel::specific(0x1a));
  CHECK(parse_thread_sel("-1")->tid == IdSel::all());
  CHECK(parse_thread_sel("0")->tid == IdSel::any());
  auto mp = parse_thread_sel("p1.2");
  REQUIRE(mp);
  CHECK(*mp->pid == IdSel::specific(1));
  CHECK(mp->tid == IdSel::specific(2));
  CHECK(parse_thread_sel("p0.0")->tid == IdSel::any());
  CHECK(parse_thread_sel("p1.-1")->tid == IdSel::all());
  CHECK(parse_thread_sel("p1")->tid == IdSel::all());
  for (const char* bad : {"", "p", "p.1", "p1.", "p1.x", "xyz", "1.2", "p1.2.3"})
    CHECK_MESSAGE(!parse_thread_sel(bad), bad);
  CHECK(format_thread_id(1, 0x2a, true) == "p1.2a");
  CHECK(format_thread_id(1, 0x2a, false) == "2a");
  // tid 0 would read as "any" on the wire, so it travels as a reserved id.
  CHECK(format_thread_id(0, 0, true) == "p7fffffff.7fffffff");
  CHECK(parse_thread_sel("7fffffff")->tid == IdSel::specific(0));
}

TEST_CASE("writer frames with checksum and escapes binary") {
  CHECK(frame_packet("OK") == "$OK#9a");
  CHECK(frame_packet("") == "$#00");
  CHECK(escape_binary("a#b$c}d*e") == "a}\x03" "b}\x04" "c}]d}\x0a" "e");
  std::string all_bytes;
  for (int i = 0; i < 256; ++i) all_bytes.push_back(char(i));
  CHECK(unescape_binary(escape_binary(all_bytes)) == all_bytes);
}

TEST_CASE("reader: a packet split at every byte boundary") {
  std::string wire = frame_packet("qSupported:multiprocess+");
  for (size_t split = 0; split <= wire.size(); ++split) {
    PacketReader r(4096);
    r.feed(std::string_view(wire).substr(0, split));
    r.feed(std::string_view(wire).substr(split));
    auto events = drain(r);
    REQUIRE(events.size() == 1);
    CHECK(events[0].kind == ReaderEvent::Kind::Packet);
    CHECK(events[0].payload == "qSupported:multiprocess+");
  }
}

TEST_CASE("reader: acks, nacks, interrupts and garbage between packets") {
  PacketReader r(4096);
  r.feed(std::string("+junk\x03-") + frame_packet("g") + "+");
  auto events = drain(r);
  REQUIRE(events.size() == 3);
  CHECK(events[0].kind == ReaderEvent::Kind::Interrupt);
  CHECK(events[1].kind == ReaderEvent::Kind::Nack);
  CHECK(events[2].kind == ReaderEvent::Kind::Packet);
  CHECK(events[2].payload == "g");
  CHECK_FALSE(r.mid_packet());
}

TEST_CASE("reader: checksum errors") {
  PacketReader r(4096);
  r.feed("$OK#00$OK#zz$OK#9A");  // wrong, non-hex, upper-case ok
  auto events = drain(r);
  REQUIRE(events.size() == 3);
  CHECK(events[0].kind == ReaderEvent::Kind::BadChecksum);
  CHECK(events[1].kind == ReaderEvent::Kind::BadChecksum);
  CHECK(events[2].kind == ReaderEvent::Kind::Packet);
}

TEST_CASE("reader: binary payloads are unescaped after the checksum") {
  std::string data = std::string("X1000,4:") + "#$}*";
  PacketReader r(4096);
  r.feed(frame_packet(escape_binary(data)));
  auto events = drain(r);
  REQUIRE(events.size() == 1);
  CHECK(events[0].payload == data);
  r.feed(frame_packet("abc}"));  // dangling escape
  events = drain(r);
  REQUIRE(events.size() == 1);
  CHECK(events[0].kind == ReaderEvent::Kind::Malformed);
}

TEST_CASE("reader: '$' inside a payload restarts the packet") {
  PacketReader r(4096);
  r.feed("$qSupp$g#67");
  auto events = drain(r);
  REQUIRE(events.size() == 1);
  CHECK(events[0].payload == "g");
}

TEST_CASE("reader: oversize packets are discarded without buffering") {
  PacketReader r(16);
  std::string big(100000, 'a');
  r.feed(frame_packet(big));
  auto events = drain(r);
  REQUIRE(events.size() == 1);
  CHECK(events[0].kind == ReaderEvent::Kind::Oversize);
  r.feed(frame_packet("g"));  // and the stream continues
  events = drain(r);
  REQUIRE(events.size() == 1);
  CHECK(events[0].payload == "g");
}

TEST_CASE("reader: truncated input leaves it mid-packet, and take_interrupt finds queued Ctrl-C") {
  PacketReader r(4096);
  r.feed("$vCont;c#a8");
  r.feed("\x03");
  CHECK(r.take_interrupt());
  CHECK_FALSE(r.take_interrupt());
  auto e = r.next();
  REQUIRE(e);
  CHECK(e->payload == "vCont;c");
  r.feed("$m1000,");
  CHECK(r.mid_packet());
  CHECK_FALSE(r.next());
}

TEST_CASE("reader: the event queue stays bounded but keeps interrupts") {
  PacketReader r(4096);
  std::string flood(PacketReader::kMaxQueuedEvents * 3, '-');
  r.feed(flood);
  r.feed("\x03");
  CHECK(r.queued() <= PacketReader::kMaxQueuedEvents + 1);
  CHECK(r.take_interrupt());
}
