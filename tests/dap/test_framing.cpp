// DAP base protocol framing: normal messages, split reads, junk headers,
// oversized and truncated bodies.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "dap/protocol/framing.h"

using namespace ttd::dap;

namespace {
// A channel that returns its input in fixed-size pieces.
struct ScriptedChannel : Channel {
  std::string in;
  size_t pos = 0, piece;
  explicit ScriptedChannel(std::string s, size_t p = 1 << 20) : in(std::move(s)), piece(p) {}
  long read(void* buf, size_t n) override {
    size_t k = std::min(std::min(n, piece), in.size() - pos);
    std::memcpy(buf, in.data() + pos, k);
    pos += k;
    return long(k);
  }
  bool write_all(const void*, size_t) override { return true; }
};
}  // namespace

TEST_CASE("framing: messages back to back, byte by byte") {
  std::string a = R"({"seq":1})", b = R"({"seq":2,"x":"\r\n\r\n"})";
  ScriptedChannel ch(frame_message(a) + frame_message(b), 1);
  MessageReader r(ch);
  Frame f1 = r.next(), f2 = r.next(), f3 = r.next();
  CHECK(f1.kind == Frame::Kind::Message);
  CHECK(f1.body == a);
  CHECK(f2.body == b);
  CHECK(f3.kind == Frame::Kind::End);
}

TEST_CASE("framing: extra header fields and case are accepted") {
  ScriptedChannel ch("content-length: 2\r\nContent-Type: application/json\r\n\r\n{}");
  MessageReader r(ch);
  Frame f = r.next();
  CHECK(f.kind == Frame::Kind::Message);
  CHECK(f.body == "{}");
}

TEST_CASE("framing: a bad header is reported and reading continues") {
  ScriptedChannel ch("Hello there\r\n\r\nContent-Length: x1\r\n\r\n" + frame_message("{}"));
  MessageReader r(ch);
  Frame f1 = r.next();
  CHECK(f1.kind == Frame::Kind::BadHeader);
  Frame f2 = r.next();
  CHECK(f2.kind == Frame::Kind::BadHeader);
  CHECK(f2.reason.find("not a number") != std::string::npos);
  Frame f3 = r.next();
  CHECK(f3.kind == Frame::Kind::Message);
  CHECK(f3.body == "{}");
}

TEST_CASE("framing: an oversized body is skipped") {
  ScriptedChannel ch("Content-Length: 999999999999\r\n\r\nabc");
  MessageReader r(ch);
  Frame f = r.next();
  CHECK(f.kind == Frame::Kind::BadHeader);
  CHECK(r.next().kind == Frame::Kind::End);
}

TEST_CASE("framing: input ending inside a body or header") {
  {
    ScriptedChannel ch("Content-Length: 10\r\n\r\n{}");
    MessageReader r(ch);
    CHECK(r.next().kind == Frame::Kind::BadHeader);
    CHECK(r.next().kind == Frame::Kind::End);
  }
  {
    ScriptedChannel ch("Content-Len");
    MessageReader r(ch);
    CHECK(r.next().kind == Frame::Kind::BadHeader);
    CHECK(r.next().kind == Frame::Kind::End);
  }
}

TEST_CASE("framing: a header without an end is cut off") {
  ScriptedChannel ch(std::string(10000, 'a'));
  MessageReader r(ch);
  CHECK(r.next().kind == Frame::Kind::BadHeader);
  CHECK(r.next().kind == Frame::Kind::End);
}
