// Bad input ends the read with an Error naming the file and the byte
// offset; what reached the sink before is valid, and end() is not called.
#include <doctest/doctest.h>

#include "formats/tt6/tt6_layout.h"
#include "formats/tt6/testing/tt6_writer.h"
#include "tt6_test_support.h"

namespace ttd::test {

using namespace fmt::tt6;

namespace {

constexpr uint32_t kNop = 0x60000000u;     // ori 0,0,0: COMPUTE
constexpr uint32_t kB = 0x48000008u;       // b .+8: FLOW_ALTERING
constexpr uint32_t kLwz = 0x80690000u;     // lwz r3,0(r9): MEMORY
constexpr uint32_t kLswx = 0x7d49342au;    // lswx r10,r9,r6: MEMORY_EXTENDED

void check_error(const std::vector<uint8_t>& bytes, Variant v, uint64_t offset, const char* words,
                 size_t steps_before = 0) {
  auto read = read_bytes(bytes, v);
  REQUIRE_FALSE(read->status.ok());
  const Error& e = read->status.error();
  INFO(e.to_string());
  CHECK(e.where == read->path);
  REQUIRE(e.offset.has_value());
  CHECK_FALSE(e.offset_is_line);
  CHECK(*e.offset == offset);
  CHECK(e.message.find(words) != std::string::npos);
  CHECK_FALSE(read->sink.ended);
  CHECK(read->sink.steps.size() == steps_before);
}

std::vector<uint8_t> concat(std::vector<uint8_t> a, const std::vector<uint8_t>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

}  // namespace

TEST_CASE("TT6: short files and bad INITIAL_PC") {
  check_error({}, Variant::Tt6, 0, "too short");
  check_error({0x00, 0x01}, Variant::Tt6, 0, "too short");
  check_error(be_words({0x1002}), Variant::Tt6, 0, "not word aligned");
  check_error(be_words({0x1000}), Variant::Tt6, 4, "no records");
}

TEST_CASE("TT6: records cut in half") {
  // FLOW_ALTERING without its next address, after one good step.
  check_error(be_words({0x1000, kNop, kB}), Variant::Tt6, 8, "FLOW_ALTERING record", 1);
  check_error(be_words({0x1000, kLwz}), Variant::Tt6e, 4, "MEMORY record");
  check_error(be_words({0x1000, kNop, kLswx, 0x2000}), Variant::Tt6, 8, "MEMORY_EXTENDED record", 1);
  // A longword cut short at the end.
  check_error(concat(be_words({0x1000, kNop}), {0x60, 0x00}), Variant::Tt6, 8, "trailing bytes", 1);
}

TEST_CASE("TT6: counts that do not fit, misaligned branch targets") {
  // An escape record announcing 3 words with 1 present.
  check_error(be_words({0x1000, kNop, make_escape(0x20, 3), 0x5000}), Variant::Tt6e, 8, "announces 3", 1);
  check_error(be_words({0x1000, make_escape(0x01, 0xFFFF)}), Variant::Tt6, 4, "announces 65535");
  check_error(be_words({0x1000, kB, 0x1006}), Variant::Tt6, 8, "not word aligned");
}

TEST_CASE("FULL: no cookie, cut records, bad pc") {
  check_error({}, Variant::Full, 0, "too short");
  check_error({0xA1, 0x11}, Variant::Full, 0, "too short");
  // A TT6 file is not a FULL file.
  check_error(be_words({0x1000, kNop, kNop}), Variant::Full, 0, "no FULL cookie");
  check_error(be_words({kFullCookie}), Variant::Full, 4, "no records");

  FullWriter w;
  PpcUserState s;
  s.srr0 = 0x1000;
  w.record(kNop, s);
  s.srr0 = 0x1004;
  w.record(kNop, s);
  std::vector<uint8_t> two = w.bytes();
  std::vector<uint8_t> cut(two.begin(), two.end() - 500);
  check_error(cut, Variant::Full, 4 + full::kRecordBytes, "cut short: 504 of 1004", 1);
  std::vector<uint8_t> bad_pc = two;
  store_be32(bad_pc.data() + 4 + full::kRecordBytes + full::kSrr0, 0x1006);
  check_error(bad_pc, Variant::Full, 4 + full::kRecordBytes + full::kSrr0, "not word aligned", 1);
}

TEST_CASE("Every truncation of the guest's traces fails cleanly or reads a prefix") {
  const GuestRun& run = guest_run();
  REQUIRE(run.error.empty());
  for (Variant v : {Variant::Tt6, Variant::Tt6e, Variant::Full}) {
    const auto& bytes = v == Variant::Tt6 ? run.tt6 : v == Variant::Tt6e ? run.tt6e : run.full;
    for (size_t len : {size_t(0), size_t(3), size_t(5), size_t(6), size_t(10), size_t(11), size_t(1001),
                       size_t(1007), size_t(2013), bytes.size() / 2 + 1, bytes.size() - 1}) {
      if (len > bytes.size()) continue;
      auto read = read_bytes(std::vector<uint8_t>(bytes.begin(), bytes.begin() + long(len)), v);
      INFO("variant " << variant_format_name(v) << " length " << len);
      if (read->status.ok()) {
        CHECK(read->sink.ended);
        CHECK_FALSE(read->sink.steps.empty());
      } else {
        CHECK(read->status.error().where == read->path);
        CHECK(read->status.error().offset.has_value());
        CHECK(*read->status.error().offset <= len);
      }
    }
  }
}

}  // namespace ttd::test
