// Bad input: every error names the file and the byte offset, and what was
// valid before it still reaches the consumer. Nothing crashes.
#include <doctest/doctest.h>

#include <filesystem>

#include "fdr_writer.h"
#include "formats/xray/xray_format.h"
#include "formats/xray/xray_pipeline.h"
#include "test_support.h"

using namespace ttd::fmt::xray;
using namespace xray_test;

namespace {

struct Outcome {
  ttd::Status status;
  std::vector<XrayEvent> events;
  std::string path;
};

Outcome read_bytes(const std::vector<uint8_t>& bytes, const char* name = "log.xray") {
  Outcome o;
  o.path = temp_path(name);
  REQUIRE(write_file(o.path, bytes));
  CollectEvents c;
  o.status = read_xray_events(o.path, c);
  o.events = c.events;
  return o;
}

// The error names the file and the offset, and says `words`.
void check_error(const Outcome& o, uint64_t offset, const std::string& words) {
  REQUIRE_FALSE(o.status.ok());
  const ttd::Error& e = o.status.error();
  CHECK(e.where == o.path);
  REQUIRE(e.offset.has_value());
  CHECK(*e.offset == offset);
  CHECK_MESSAGE(e.message.find(words) != std::string::npos, e.to_string());
}

FdrWriter good_v5() {
  FdrWriter w(5);
  w.begin_buffer(1, 1, 0, 100);
  w.function(Action::Enter, 1, 0);
  w.function(Action::Exit, 1, 5);
  w.end_buffer();
  return w;
}

}  // namespace

TEST_CASE("header errors") {
  check_error(read_bytes({}), 0, "too short");
  check_error(read_bytes({5, 0, 1, 0}), 4, "too short");
  auto v6 = good_v5().bytes();
  v6[0] = 6;
  check_error(read_bytes(v6), 0, "version 6");
  auto v0 = good_v5().bytes();
  v0[0] = 0;
  check_error(read_bytes(v0), 0, "version 0");
  auto type2 = good_v5().bytes();
  type2[2] = 2;
  check_error(read_bytes(type2), 2, "log type 2");
  auto basic4 = basic_header(4);
  check_error(read_bytes(basic4), 0, "basic log version 4");
}

TEST_CASE("a header alone is an empty trace") {
  auto o = read_bytes(FdrWriter(5).bytes());
  CHECK(o.status.ok());
  CHECK(o.events.empty());
  auto b = read_bytes(basic_header(3));
  CHECK(b.status.ok());
}

TEST_CASE("missing file, directory") {
  CollectEvents c;
  auto s = read_xray_events("/nonexistent/dir/x.xray", c);
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().where == "/nonexistent/dir/x.xray");
  auto dir = temp_path("adir");
  std::filesystem::create_directories(dir);
  auto d = read_xray_events(dir, c);
  REQUIRE_FALSE(d.ok());
  CHECK(d.error().message.find("not a regular file") != std::string::npos);
}

TEST_CASE("garbage where a buffer should start") {
  auto w = good_v5();
  w.raw({0x42, 0x42, 0x42, 0x42, 0x42, 0x42, 0x42, 0x42, 0x42, 0x42, 0x42, 0x42, 0x42, 0x42, 0x42, 0x42});
  auto o = read_bytes(w.bytes());
  check_error(o, w.size() - 16, "expected a BufferExtents record");
  CHECK(o.events.size() == 2);  // the good buffer came first
  auto tail = good_v5();
  tail.raw({0x0f, 0, 0});
  check_error(read_bytes(tail.bytes()), tail.size() - 3, "trailing bytes");
}

TEST_CASE("file truncated inside a buffer") {
  FdrWriter w(5);
  w.begin_buffer(7, 7, 0, 100);
  for (uint32_t i = 0; i < 10; ++i) w.function(Action::Enter, i + 1, 1);
  w.end_buffer();
  auto bytes = w.bytes();
  bytes.resize(bytes.size() - 12);  // cut through the 9th function record
  auto o = read_bytes(bytes);
  check_error(o, 32 + 16 + 64 + 8 * 8, "file truncated");
  CHECK(o.events.size() == 8);
  // Cut exactly between records: the buffer still declares more bytes.
  bytes.resize(bytes.size() - 4);
  auto o2 = read_bytes(bytes);
  check_error(o2, 32 + 16 + 64 + 8 * 8, "file truncated");
  CHECK(o2.events.size() == 8);
}

TEST_CASE("BufferExtents that do not match the records") {
  // Too small without typed events: a record runs past the buffer end.
  auto w = good_v5();
  auto small = w.bytes();
  small[33] -= 4;
  check_error(read_bytes(small), 32 + 16 + 64 + 8, "ends at offset");
  // Too large: the next buffer's BufferExtents shows up inside.
  FdrWriter two(5);
  two.begin_buffer(1, 1, 0, 100);
  two.function(Action::Enter, 1, 0);
  two.end_buffer();
  two.begin_buffer(2, 1, 0, 100);
  two.function(Action::Enter, 1, 0);
  two.end_buffer();
  auto big = two.bytes();
  big[33] += 16;
  check_error(read_bytes(big), 32 + 16 + 64 + 8, "BufferExtents record inside");
  big[33] -= 8;  // half of the next BufferExtents inside
  check_error(read_bytes(big), 32 + 16 + 64 + 8, "ends at offset 128");
}

TEST_CASE("bad records") {
  SUBCASE("unknown metadata kind") {
    auto w = good_v5();
    size_t at = w.size();
    w.metadata(12, {});
    auto b = w.bytes();
    b[33] += 16;  // extend the buffer over it
    check_error(read_bytes(b), at, "unknown metadata record kind 12");
  }
  SUBCASE("unknown function action") {
    FdrWriter w(5);
    w.begin_buffer(1, 1, 0, 100);
    size_t at = w.size();
    w.raw({0x0a, 0, 0, 0, 0, 0, 0, 0});  // action 5
    w.end_buffer();
    check_error(read_bytes(w.bytes()), at, "unknown function record action 5");
  }
  SUBCASE("non-positive event size") {
    FdrWriter w(5);
    w.begin_buffer(1, 1, 0, 100);
    size_t at = w.size();
    w.metadata(5, {0xff, 0xff, 0xff, 0xff});  // size -1
    w.end_buffer();
    check_error(read_bytes(w.bytes()), at, "invalid custom event size -1");
  }
  SUBCASE("EndOfBuffer after version 1") {
    FdrWriter w(3);
    w.begin_buffer(1, 1, 0, 100);
    size_t at = w.size();
    w.metadata(1, {});
    w.end_buffer();
    check_error(read_bytes(w.bytes()), at, "EndOfBuffer record in a version 3 log");
  }
  SUBCASE("BufferExtents in version 1") {
    FdrWriter w(1);
    w.begin_buffer(1, 1, 0, 100);
    size_t at = w.size();
    w.metadata(7, {});
    w.end_buffer();
    check_error(read_bytes(w.bytes()), at, "BufferExtents record in a version 1 log");
  }
  SUBCASE("version 1 garbage between buffers") {
    FdrWriter w(1);  // no buffer size in the header: buffers end at EndOfBuffer
    w.begin_buffer(1, 1, 0, 100);
    w.function(Action::Enter, 1, 0);
    w.end_buffer();
    size_t at = w.size();
    w.raw({0x13, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
    auto o = read_bytes(w.bytes());
    check_error(o, at, "expected a NewBuffer record");
    CHECK(o.events.size() == 1);
  }
  SUBCASE("records before the buffer names its thread") {
    FdrWriter w(5);
    auto b = w.bytes();
    // BufferExtents, then a function record at once.
    std::vector<uint8_t> buf = {0x0f, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10, 0, 0, 0, 1, 0, 0, 0};
    b.insert(b.end(), buf.begin(), buf.end());
    check_error(read_bytes(b), 48, "thread is unknown");
  }
}

TEST_CASE("version 1 buffers are skipped to the header's buffer size, whatever the padding holds") {
  FdrWriter w(1, 200);  // pads with 0xab: would parse as unknown metadata kind 85
  w.begin_buffer(1, 0, 0, 100);
  w.function(Action::Enter, 1, 0);
  w.end_buffer();
  w.begin_buffer(2, 0, 1, 300);
  w.function(Action::Enter, 2, 0);
  w.function(Action::Exit, 2, 9);
  w.end_buffer();
  CHECK(w.size() == 32 + 2 * 200);
  auto o = read_bytes(w.bytes());
  REQUIRE_MESSAGE(o.status.ok(), (o.status.ok() ? "" : o.status.error().to_string()));
  REQUIRE(o.events.size() == 3);
  CHECK(o.events[1].tid == 2);
  CHECK(o.events[2].tsc == 309);
  CHECK(o.events[2].cpu == 1);
}

TEST_CASE("every prefix of a padded version 1 log is read whole or refused as truncated") {
  // compiler-rt's version 1 writes whole buffers of the header's size, the
  // rest after EndOfBuffer zero-filled. A copy cut anywhere but at a buffer
  // boundary is truncated, also inside the padding (which used to read as a
  // complete log with the later buffers silently missing).
  const uint64_t kBuffer = 112;  // 48 bytes of buffer metadata, 4 functions, EndOfBuffer, 16 padding
  FdrWriter w(1, kBuffer);
  w.set_v1_padding(0);
  const uint32_t per_buffer[] = {4, 4, 2};
  uint32_t fid = 1;
  for (int b = 0; b < 3; ++b) {
    w.begin_buffer(b + 1, 0, 0, 100);
    for (uint32_t i = 0; i < per_buffer[b]; ++i) w.function(Action::Enter, fid++, 1);
    w.end_buffer();
  }
  const auto full = w.bytes();
  REQUIRE(full.size() == 32 + 3 * kBuffer);
  size_t refused = 0;
  for (size_t n = 0; n <= full.size(); ++n) {
    CAPTURE(n);
    auto o = read_bytes(std::vector<uint8_t>(full.begin(), full.begin() + n), "prefix.xray");
    if (n >= 32 && (n - 32) % kBuffer == 0) {  // a whole log with fewer buffers
      REQUIRE_MESSAGE(o.status.ok(), o.status.error().to_string());
      size_t whole = (n - 32) / kBuffer, expect = 0;
      for (size_t b = 0; b < whole; ++b) expect += per_buffer[b];
      CHECK(o.events.size() == expect);
      continue;
    }
    REQUIRE_FALSE(o.status.ok());
    CHECK(o.status.error().where == o.path);
    CHECK(o.status.error().offset.has_value());
    if (n >= 32) CHECK_MESSAGE(o.status.error().message.find("truncated") != std::string::npos,
                               o.status.error().to_string());
    ++refused;
  }
  CHECK(refused == full.size() + 1 - 4);
}

TEST_CASE("basic-mode errors") {
  SUBCASE("partial last record") {
    auto b = basic_header(3);
    basic_function(b, Action::Enter, 1, 10, 1, 1);
    basic_function(b, Action::Exit, 1, 20, 1, 1);
    b.resize(b.size() - 5);
    auto o = read_bytes(b);
    check_error(o, 64, "not a whole 32-byte record");
    CHECK(o.events.size() == 1);
  }
  SUBCASE("argument without its entry") {
    auto b = basic_header(3);
    basic_function(b, Action::EnterArgs, 1, 10, 1, 1);
    basic_argument(b, 2, 1, 1, 99);
    check_error(read_bytes(b), 64, "does not follow an entry");
  }
  SUBCASE("argument from another process (version 3 checks it)") {
    auto b = basic_header(3);
    basic_function(b, Action::EnterArgs, 1, 10, 1, 1);
    basic_argument(b, 1, 1, 2, 99);
    check_error(read_bytes(b), 64, "does not follow an entry");
    auto v2 = basic_header(2);
    basic_function(v2, Action::EnterArgs, 1, 10, 1, 1);
    basic_argument(v2, 1, 1, 2, 99);
    CHECK(read_bytes(v2).status.ok());
  }
  SUBCASE("unknown record type and action") {
    auto b = basic_header(3);
    basic_function(b, Action::Enter, 1, 10, 1, 1);
    b[32] = 7;
    check_error(read_bytes(b), 32, "unknown basic-mode record type 7");
    auto a = basic_header(3);
    basic_function(a, Action::Enter, 1, 10, 1, 1);
    a[35] = 9;
    check_error(read_bytes(a), 32, "unknown function record action 9");
  }
}

TEST_CASE("random garbage never crashes and is refused or read") {
  uint64_t seed = 12345;
  auto rnd = [&] {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return uint8_t(seed >> 56);
  };
  for (int round = 0; round < 300; ++round) {
    auto w = good_v5();
    auto b = w.bytes();
    size_t n = 1 + round % 40;
    for (size_t i = 0; i < n; ++i) b[32 + (rnd() % (b.size() - 32))] = rnd();
    if (round % 3 == 0) b.resize(32 + rnd() % (b.size() - 32));
    auto o = read_bytes(b);
    if (!o.status.ok()) {
      CHECK(o.status.error().where == o.path);
      CHECK(o.status.error().offset.has_value());
    }
  }
}
