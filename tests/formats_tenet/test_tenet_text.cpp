// Hex spelling and the line reader underneath the Tenet parser.
#include <doctest/doctest.h>

#include "formats/tenet/hex_text.h"
#include "formats/tenet/line_reader.h"
#include "temp_file.h"

using namespace ttd;
using namespace ttd::fmt::tenet;

TEST_CASE("hex numbers follow Python's int(text, 16)") {
  uint64_t v = 0;
  CHECK(parse_hex_u64("0x1f", v) == HexStatus::Ok);
  CHECK(v == 0x1f);
  CHECK(parse_hex_u64("1F", v) == HexStatus::Ok);
  CHECK(v == 0x1f);
  CHECK(parse_hex_u64("0XdeadBEEF", v) == HexStatus::Ok);
  CHECK(v == 0xdeadbeef);
  CHECK(parse_hex_u64("0x_dead_beef", v) == HexStatus::Ok);
  CHECK(v == 0xdeadbeef);
  CHECK(parse_hex_u64("ffffffffffffffff", v) == HexStatus::Ok);
  CHECK(v == ~0ull);
  CHECK(parse_hex_u64("0x000000000000000000001", v) == HexStatus::Ok);
  CHECK(v == 1);
  CHECK(parse_hex_u64("1ffffffffffffffff", v) == HexStatus::TooLarge);
  CHECK(parse_hex_u64("", v) == HexStatus::Empty);
  CHECK(parse_hex_u64("0x", v) == HexStatus::Empty);
  CHECK(parse_hex_u64("_1", v) == HexStatus::BadDigit);
  CHECK(parse_hex_u64("1__2", v) == HexStatus::BadDigit);
  CHECK(parse_hex_u64("12_", v) == HexStatus::BadDigit);
  CHECK(parse_hex_u64("-1", v) == HexStatus::BadDigit);
  CHECK(parse_hex_u64("0x1g", v) == HexStatus::BadDigit);

  uint8_t le[4];
  CHECK(parse_hex_number_le("0x01020304", le) == HexStatus::Ok);
  CHECK(le[0] == 4);
  CHECK(le[3] == 1);
  CHECK(parse_hex_number_le("0x0001020304", le) == HexStatus::Ok);
  CHECK(parse_hex_number_le("0x101020304", le) == HexStatus::TooLarge);
  CHECK(parse_hex_number_le("abc", le) == HexStatus::Ok);
  CHECK(le[0] == 0xbc);
  CHECK(le[1] == 0x0a);
}

TEST_CASE("hex byte strings follow binascii.unhexlify") {
  std::vector<uint8_t> out = {9};
  CHECK(parse_hex_bytes("00fFa0", out) == HexStatus::Ok);
  CHECK(out == std::vector<uint8_t>{9, 0, 0xff, 0xa0});
  CHECK(parse_hex_bytes("abc", out) == HexStatus::OddLength);
  CHECK(parse_hex_bytes("zz", out) == HexStatus::BadDigit);
  CHECK(parse_hex_bytes("0_", out) == HexStatus::BadDigit);
  CHECK(out.size() == 4);  // failures append nothing
  CHECK(parse_hex_bytes("", out) == HexStatus::Ok);
}

TEST_CASE("line reader: small buffers, long lines, CRLF, no final newline") {
  std::string long_line(1000, 'x');
  test::TempFile f("a\r\n\n" + long_line + "\nlast");
  auto r = LineReader::open(f.path(), 64);
  REQUIRE(r.ok());
  LineReader& lr = *r.value();
  std::string_view line;
  REQUIRE(lr.next(line).value());
  CHECK(line == "a");
  CHECK(lr.line_number() == 1);
  REQUIRE(lr.next(line).value());
  CHECK(line.empty());
  REQUIRE(lr.next(line).value());
  CHECK(line == long_line);
  CHECK(lr.line_number() == 3);
  CHECK(lr.line_offset() == 4);
  REQUIRE(lr.next(line).value());
  CHECK(line == "last");
  CHECK(lr.bytes_consumed() == lr.file_size());
  CHECK_FALSE(lr.next(line).value());
  CHECK_FALSE(lr.next(line).value());

  auto missing = LineReader::open("/nonexistent/trace.log");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message.find("cannot open file") == 0);
}
