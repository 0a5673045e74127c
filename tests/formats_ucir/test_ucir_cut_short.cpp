// A trace whose file ends inside its last chunk (a recording killed with
// SIGKILL, power loss, a full disk) reads up to the last whole chunk and
// says where it was cut (UcirReader::kCutShortProperty); a chunk that is
// whole and wrong is still an error wherever it is (docs/formats/ucir.md).
#include <doctest/doctest.h>

#include <vector>

#include "formats/ucir/ucir_op_encoder.h"
#include "formats/ucir/ucir_reader.h"
#include "ucir_test_support.h"

// A namespace of its own: CI's unity build compiles it with its suite's other files.
namespace test_ucir_cut_short {

using namespace ttd;
using namespace ttd::fmt::ucir;
using ttd::test::RecordingSink;

namespace {

constexpr uint16_t kUc1Rax = 35, kUc1Rsp = 44;  // Unicorn 1.x x86 register numbers
constexpr uint64_t kHeader = 74;
constexpr uint64_t kFirstChunk = kHeader + 10;  // after the stream identifier

// A keyframe, then frames of steps each writing 2000 bytes: about 3 chunks
// of 64 KiB decoded.
std::vector<uint8_t> three_chunk_ops(uint64_t& steps) {
  std::vector<uint8_t> ops;
  OpEncoder e(ops);
  std::vector<uint8_t> kf;
  OpEncoder k(kf);
  k.reg(kUc1Rsp, 0x7ff000);
  k.mem_map(0x400000, 0x1000, 5, 0, 0, "", "/bin/prog");
  e.frame_header(OP_KEYFRAME, 0, 2);
  e.bytes(kf);
  steps = 0;
  for (uint32_t i = 0; i < 100; ++i) {
    e.frame_header(OP_FRAME, 0, 4);
    e.jmp(0x400000, 2);
    e.mem_write(0x400100, std::vector<uint8_t>(2000, uint8_t(i)));  // little compression: distinct bytes per frame
    e.reg(kUc1Rax, i);
    e.step(2);
    ++steps;
  }
  return ops;
}

// File offsets of each chunk header after the stream identifier.
std::vector<uint64_t> chunk_starts(const std::vector<uint8_t>& file) {
  std::vector<uint64_t> at;
  for (uint64_t p = kFirstChunk; p + 4 <= file.size();) {
    at.push_back(p);
    p += 4 + (uint64_t(file[p + 1]) | uint64_t(file[p + 2]) << 8 | uint64_t(file[p + 3]) << 16);
  }
  return at;
}

}  // namespace

TEST_CASE("cut short: every cut inside the last chunk reads the whole chunks before it") {
  uint64_t all_steps = 0;
  const auto ops = three_chunk_ops(all_steps);
  const auto file = test::read_bytes(test::write_raw_ucir(ops));
  const auto starts = chunk_starts(file);
  REQUIRE(starts.size() >= 3);
  const uint64_t last = starts.back();

  RecordingSink whole;
  REQUIRE(test::read_ucir(test::write_bytes("whole.ucir", file), whole).ok());
  CHECK(whole.steps.size() == all_steps);
  CHECK(whole.property(std::string(fmt::UcirReader::kCutShortProperty)).empty());

  // Steps whole before the last chunk: what a cut anywhere in it must give.
  std::vector<uint8_t> prefix(file.begin(), file.begin() + long(last));
  RecordingSink before;
  // Cut at a chunk boundary: the file looks complete (no end marker in the
  // format), the stream ends inside a frame.
  REQUIRE(test::read_ucir(test::write_bytes("boundary.ucir", prefix), before).ok());
  CHECK(before.steps.size() < all_steps);
  CHECK(before.steps.size() > 0);

  size_t checked = 0;
  for (uint64_t cut = last + 1; cut < file.size(); ++cut) {
    std::vector<uint8_t> t(file.begin(), file.begin() + long(cut));
    RecordingSink sink;
    const Status s = test::read_ucir(test::write_bytes("cut.ucir", t), sink);
    REQUIRE_MESSAGE(s.ok(), "cut at " << cut << ": " << s.error().to_string());
    CHECK(sink.property(std::string(fmt::UcirReader::kCutShortProperty)) == std::to_string(last));
    CHECK(sink.steps.size() == before.steps.size());
    // The read ended normally (end() came) with the same steps.
    CHECK(!sink.log.empty());
    CHECK(sink.log.back() == "end");
    ++checked;
  }
  CHECK(checked == file.size() - last - 1);
  test::remove_temp_files();
}

TEST_CASE("cut short: a cut in an earlier chunk reads the chunks before that one") {
  uint64_t all_steps = 0;
  const auto file = test::read_bytes(test::write_raw_ucir(three_chunk_ops(all_steps)));
  const auto starts = chunk_starts(file);
  REQUIRE(starts.size() >= 3);
  std::vector<uint8_t> t(file.begin(), file.begin() + long(starts[1] + 100));
  RecordingSink sink;
  REQUIRE(test::read_ucir(test::write_bytes("cut1.ucir", t), sink).ok());
  CHECK(sink.property(std::string(fmt::UcirReader::kCutShortProperty)) == std::to_string(starts[1]));
  CHECK(sink.steps.size() > 0);
  CHECK(sink.steps.size() < all_steps);
  test::remove_temp_files();
}

TEST_CASE("cut short: a corrupt chunk in the middle is still an error naming the file and its offset") {
  uint64_t all_steps = 0;
  auto file = test::read_bytes(test::write_raw_ucir(three_chunk_ops(all_steps)));
  const auto starts = chunk_starts(file);
  REQUIRE(starts.size() >= 3);
  SUBCASE("a flipped CRC byte in the second chunk") {
    file[starts[1] + 4] ^= 0x40;
    const std::string path = test::write_bytes("crc.ucir", file);
    RecordingSink sink;
    const Status s = test::read_ucir(path, sink);
    REQUIRE(!s.ok());
    CHECK(s.error().where == path);
    CHECK(s.error().offset == starts[1]);
  }
  SUBCASE("a length that runs past the end, in a chunk that is not the last") {
    // The second chunk claims the rest of the file and more: the chunk
    // after it is then parsed as its body, whose CRC fails - never read as
    // a cut tail, since the file does not end inside it.
    file[starts[1] + 1] = 0xff;
    file[starts[1] + 2] = 0xff;
    file[starts[1] + 3] = 0x00;
    const std::string path = test::write_bytes("len.ucir", file);
    RecordingSink sink;
    const Status s = test::read_ucir(path, sink);
    if (file.size() - starts[1] - 4 >= 0xffff) {
      REQUIRE(!s.ok());
      CHECK(s.error().offset == starts[1]);
    }
  }
  test::remove_temp_files();
}

TEST_CASE("cut short: inside the first keyframe nothing is readable, and the error says so") {
  uint64_t all_steps = 0;
  const auto file = test::read_bytes(test::write_raw_ucir(three_chunk_ops(all_steps)));
  // The first chunk cut short, and it held the keyframe: nothing whole.
  std::vector<uint8_t> t(file.begin(), file.begin() + long(kFirstChunk + 20));
  const std::string path = test::write_bytes("kf.ucir", t);
  RecordingSink sink;
  const Status s = test::read_ucir(path, sink);
  // The whole first chunk is gone: no keyframe, an empty trace that says it was cut.
  if (s.ok()) CHECK(sink.property(std::string(fmt::UcirReader::kCutShortProperty)) == std::to_string(kFirstChunk));
  else CHECK(s.error().message.find("cut short") != std::string::npos);
  test::remove_temp_files();
}

}  // namespace test_ucir_cut_short
