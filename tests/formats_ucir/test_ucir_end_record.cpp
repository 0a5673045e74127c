// ttd's end record (formats/ucir/ucir_end_record.h): a file ttd wrote says
// how its recording ended, and a file cut exactly at a chunk boundary,
// which the snappy framing alone cannot tell from a whole one, reads as
// cut short instead of as complete.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "formats/ucir/ucir_end_record.h"
#include "formats/ucir/ucir_op_encoder.h"
#include "formats/ucir/ucir_reader.h"
#include "formats/ucir/ucir_writer.h"
#include "ucir_test_support.h"

// A namespace of its own: CI's unity build compiles it with its suite's other files.
namespace test_ucir_end_record {

using namespace ttd;
using namespace ttd::fmt;
using ttd::test::RecordingSink;

namespace {

constexpr uint64_t kFirstChunk = 74 + 10;  // header, stream identifier

// A trace of `steps` steps, each writing 3000 distinct bytes (several data
// chunks), closed with `ending` (nullopt: the writer is destroyed unclosed).
std::string write_trace(const std::string& name, int steps, std::optional<std::string> ending) {
  const std::string path = test::temp_path(name);
  auto w = UcirWriter::create(path, ArchId::X86_64).value();
  w->begin_keyframe();
  w->mem_map(0x400000, 0x10000, 7, "code");
  w->end_keyframe();
  for (int i = 0; i < steps; ++i) {
    w->begin_frame();
    w->jmp(0x400000 + uint64_t(i) * 4, 4);
    std::vector<uint8_t> bytes(3000);
    for (size_t b = 0; b < bytes.size(); ++b) bytes[b] = uint8_t(b * 7 + size_t(i) * 13);
    w->mem_write(0x401000, bytes);
    w->step(4);
  }
  if (ending) REQUIRE(w->close(*ending).ok());
  return path;
}

struct Chunk {
  uint64_t at;
  uint8_t type;
  uint64_t end;
};

std::vector<Chunk> chunks(const std::vector<uint8_t>& file) {
  std::vector<Chunk> out;
  for (uint64_t p = kFirstChunk; p + 4 <= file.size();) {
    const uint64_t len = uint64_t(file[p + 1]) | uint64_t(file[p + 2]) << 8 | uint64_t(file[p + 3]) << 16;
    out.push_back({p, file[p], p + 4 + len});
    p += 4 + len;
  }
  return out;
}

}  // namespace

TEST_CASE("end record: the ending reads back, and every whole-chunk cut before it reads as cut short") {
  const std::string path = write_trace("ended.ucir", 150, "program exited with status 5");
  RecordingSink whole;
  REQUIRE(test::read_ucir(path, whole).ok());
  CHECK(whole.steps.size() == 150);
  CHECK(whole.property(std::string(UcirReader::kEndedProperty)) == "program exited with status 5");
  CHECK(whole.property(std::string(UcirReader::kCutShortProperty)).empty());

  const auto file = test::read_bytes(path);
  const auto cs = chunks(file);
  REQUIRE(cs.size() >= 5);
  CHECK(cs.front().type == ucir::kEndPromiseChunk);
  CHECK(cs.back().type == ucir::kEndRecordChunk);
  CHECK(cs.back().end == file.size());
  size_t checked = 0;
  // Cut at the end of each data chunk (the first holds the keyframe: a cut
  // before it is an error, nothing is readable).
  for (size_t i = 2; i + 1 < cs.size(); ++i) {
    const std::vector<uint8_t> prefix(file.begin(), file.begin() + long(cs[i].at));
    RecordingSink cut;
    const Status s = test::read_ucir(test::write_bytes("ended-cut.ucir", prefix), cut);
    REQUIRE_MESSAGE(s.ok(), s.error().to_string());
    INFO("cut at byte " << cs[i].at);
    CHECK(cut.property(std::string(UcirReader::kCutShortProperty)) == std::to_string(cs[i].at));
    CHECK(cut.property(std::string(UcirReader::kEndedProperty)).empty());
    CHECK(cut.steps.size() <= whole.steps.size());
    ++checked;
  }
  CHECK(checked >= 3);
  // Cut inside the end record itself: the steps are all there, the file
  // is still not whole.
  const std::vector<uint8_t> in_record(file.begin(), file.end() - 3);
  RecordingSink last;
  REQUIRE(test::read_ucir(test::write_bytes("ended-in-record.ucir", in_record), last).ok());
  CHECK(last.steps.size() == 150);
  CHECK(last.property(std::string(UcirReader::kCutShortProperty)) == std::to_string(cs.back().at));
}

TEST_CASE("end record: a writer destroyed unclosed leaves a file that reads as not finished") {
  const std::string path = write_trace("unclosed.ucir", 30, std::nullopt);
  RecordingSink sink;
  REQUIRE(test::read_ucir(path, sink).ok());
  CHECK(sink.steps.size() == 30);
  CHECK(sink.property(std::string(UcirReader::kCutShortProperty)) ==
        std::to_string(test::read_bytes(path).size()));
  CHECK(sink.property(std::string(UcirReader::kEndedProperty)).empty());
}

TEST_CASE("end record: close() without an ending says complete, a long ending is cut to the limit") {
  RecordingSink plain;
  REQUIRE(test::read_ucir(write_trace("plain.ucir", 3, std::string()), plain).ok());
  CHECK(plain.property(std::string(UcirReader::kEndedProperty)) == "complete");
  RecordingSink longer;
  REQUIRE(test::read_ucir(write_trace("long.ucir", 3, std::string(10000, 'x')), longer).ok());
  CHECK(longer.property(std::string(UcirReader::kEndedProperty)) == std::string(ucir::kMaxEndRecord, 'x'));
}

TEST_CASE("end record: a file without the promise (usercorn's) reads as before, whole at a chunk boundary") {
  std::vector<uint8_t> ops;  // as usercorn writes: a keyframe, a step, no promise
  ucir::OpEncoder e(ops);
  e.frame_header(ucir::OP_KEYFRAME, 0, 1);
  e.reg(44, 0x7ff000);  // Unicorn 1.x rsp
  e.frame_header(ucir::OP_FRAME, 0, 2);
  e.jmp(0x400000, 2);
  e.step(2);
  const auto path = test::write_raw_ucir(ops);
  RecordingSink sink;
  REQUIRE(test::read_ucir(path, sink).ok());
  CHECK(sink.steps.size() == 1);
  CHECK(sink.property(std::string(UcirReader::kCutShortProperty)).empty());
  CHECK(sink.property(std::string(UcirReader::kEndedProperty)).empty());
  // An end record with no promise before it is someone else's skippable
  // chunk: ignored.
  auto bytes = test::read_bytes(path);
  const std::string text = "program exited with status 1";
  test::append_chunk(bytes, ucir::kEndRecordChunk, {reinterpret_cast<const uint8_t*>(text.data()), text.size()});
  RecordingSink stray;
  REQUIRE(test::read_ucir(test::write_bytes("stray-record.ucir", bytes), stray).ok());
  CHECK(stray.property(std::string(UcirReader::kEndedProperty)).empty());
}

}  // namespace test_ucir_end_record
