// DAP base protocol framing: normal messages, split reads, junk headers,
// oversized and truncated bodies.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

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

namespace {
const std::string kThreads = R"({"seq":2,"type":"request","command":"threads"})";
const std::string kInit = R"({"seq":1,"type":"request","command":"initialize"})";

// Reads frames as the session does (a body that is not JSON is rejected)
// until a JSON message or End; collects the reasons of the bad ones.
Frame next_message(MessageReader& r, std::vector<std::string>& bad) {
  for (;;) {
    Frame f = r.next();
    if (f.kind == Frame::Kind::Message && nlohmann::json::parse(f.body, nullptr, false).is_discarded()) {
      r.reject_last_body();
      bad.push_back("not JSON: " + f.body);
      continue;
    }
    if (f.kind != Frame::Kind::BadHeader) return f;
    bad.push_back(f.reason);
  }
}
}  // namespace

TEST_CASE("framing: after a malformed frame the next well-formed one is read") {
  struct Case {
    const char* name;
    std::string bad_frame;
    const char* says;
  };
  const Case cases[] = {
      {"negative", "Content-Length: -5\r\n\r\n" + kInit, "not a number"},
      {"non-numeric", "Content-Length: 12abc\r\n\r\n" + kInit, "not a number"},
      {"missing", "Content-Type: application/json\r\n\r\n" + kInit, "without Content-Length"},
      {"over the limit", "Content-Length: 67108865\r\n\r\n" + kInit, "64 MiB limit"},
      {"header line too long", "X-Junk: " + std::string(2000, 'a') + "\r\n\r\n" + kInit, "header line longer"},
      {"two lengths", "Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}", "two different"},
  };
  for (const Case& c : cases) {
    for (size_t piece : {size_t(1), size_t(7), size_t(1) << 20}) {
      CAPTURE(c.name);
      CAPTURE(piece);
      ScriptedChannel ch("\r\n" + c.bad_frame + frame_message(kThreads), piece);
      MessageReader r(ch);
      std::vector<std::string> bad;
      Frame f = next_message(r, bad);
      REQUIRE(f.kind == Frame::Kind::Message);
      CHECK(f.body == kThreads);
      REQUIRE(!bad.empty());
      CHECK(bad[0].find(c.says) != std::string::npos);
      CHECK(bad[0].find("at byte 0") != std::string::npos);
      CHECK(next_message(r, bad).kind == Frame::Kind::End);
    }
  }
}

TEST_CASE("framing: a Content-Length too short: the rejected body is rescanned") {
  ScriptedChannel ch("Content-Length: 10\r\n\r\n" + kInit + frame_message(kThreads));
  MessageReader r(ch);
  Frame f = r.next();
  REQUIRE(f.kind == Frame::Kind::Message);
  CHECK(f.body == kInit.substr(0, 10));
  r.reject_last_body();  // the consumer found it is not JSON
  std::vector<std::string> bad;
  f = next_message(r, bad);
  REQUIRE(f.kind == Frame::Kind::Message);
  CHECK(f.body == kThreads);
}

TEST_CASE("framing: a body shorter than declared gives way to the next header") {
  // The input ends: reported, then the message behind it is still read.
  std::string declared_long = "Content-Length: 500\r\n\r\n" + kInit;
  ScriptedChannel ch(declared_long + frame_message(kThreads), 16);
  MessageReader r(ch);
  std::vector<std::string> bad;
  Frame f = next_message(r, bad);
  REQUIRE(f.kind == Frame::Kind::Message);
  CHECK(f.body == kThreads);
  REQUIRE(bad.size() == 1);
  CHECK(bad[0].find("body shorter than its Content-Length 500") != std::string::npos);
}

TEST_CASE("framing: offsets of malformed frames count from the stream's start") {
  std::string good = frame_message("{}");
  ScriptedChannel ch(good + "Content-Length: x\r\n\r\n" + good, 3);
  MessageReader r(ch);
  CHECK(r.next().kind == Frame::Kind::Message);
  Frame f = r.next();
  REQUIRE(f.kind == Frame::Kind::BadHeader);
  CHECK(f.offset == good.size());
  CHECK(f.reason.find("at byte " + std::to_string(good.size())) != std::string::npos);
  CHECK(r.next().kind == Frame::Kind::Message);
  CHECK(r.next().kind == Frame::Kind::End);
}
