// Every kind of bad input ends the read with an Error naming the file and
// the byte offset; op errors also give the decompressed stream offset.
#include <doctest/doctest.h>

#include <vector>

#include "formats/ucir/ucir_op_encoder.h"
#include "sample_traces.h"
#include "ucir_test_support.h"

using namespace ttd;
using namespace ttd::fmt::ucir;
using ttd::test::RecordingSink;

namespace {

constexpr uint64_t kHeader = 74;
constexpr uint64_t kFirstChunk = kHeader + 10;  // after the stream identifier

Error read_error(const std::string& path) {
  RecordingSink sink;
  Status s = test::read_ucir(path, sink);
  REQUIRE(!s.ok());
  CHECK(s.error().where == path);
  REQUIRE(s.error().offset.has_value());
  return s.error();
}

Error ops_error(const std::vector<uint8_t>& ops) { return read_error(test::write_raw_ucir(ops)); }

// An op stream that ends inside an op, a frame or a syscall is a tail cut
// short (a killed recording), read up to its last whole step, not an
// error: true if the read says it was cut at the end of the file.
bool cut_at_file_end(const std::vector<uint8_t>& ops, size_t steps) {
  const std::string path = test::write_raw_ucir(ops);
  RecordingSink sink;
  const Status s = test::read_ucir(path, sink);
  if (!s.ok()) {
    MESSAGE("error: " << s.error().to_string());
    return false;
  }
  CHECK(sink.steps.size() == steps);
  return sink.property("cut short at byte") == std::to_string(test::read_bytes(path).size());
}

bool contains(const Error& e, const std::string& s) {
  if (e.message.find(s) != std::string::npos) return true;
  MESSAGE("message was: " << e.to_string());
  return false;
}

}  // namespace

TEST_CASE("errors: bad magic, unknown version, short header, unsupported architecture") {
  auto file = test::read_bytes(test::write_sample_x86_64(test::temp_path("e.ucir")));
  SUBCASE("bad magic") {
    file[0] = 'X';
    const Error e = read_error(test::write_bytes("magic.ucir", file));
    CHECK(*e.offset == 0);
    CHECK(contains(e, "bad magic"));
  }
  SUBCASE("unknown version") {
    file[7] = 2;
    const Error e = read_error(test::write_bytes("version.ucir", file));
    CHECK(*e.offset == 4);
    CHECK(contains(e, "unknown UCIR version"));
  }
  SUBCASE("truncated header") {
    file.resize(40);
    const Error e = read_error(test::write_bytes("short.ucir", file));
    CHECK(*e.offset == 40);
    CHECK(contains(e, "truncated UCIR header"));
  }
  SUBCASE("unsupported architecture") {
    const auto head = test::ucir_header_bytes("sparc");
    std::copy(head.begin(), head.end(), file.begin());
    const Error e = read_error(test::write_bytes("sparc.ucir", file));
    CHECK(*e.offset == 8);
    CHECK(contains(e, "unsupported architecture 'sparc'"));
  }
}

TEST_CASE("errors: framing problems name the chunk's file offset") {
  std::vector<uint8_t> ops;
  OpEncoder(ops).frame_header(OP_FRAME, 0, 0);
  std::vector<uint8_t> file = test::ucir_header_bytes();
  test::append_stream_identifier(file);
  test::append_chunk(file, 0x01, ops);
  const uint64_t second = file.size();
  SUBCASE("bad CRC") {
    test::append_chunk(file, 0x00, ops, true);
    const Error e = read_error(test::write_bytes("crc.ucir", file));
    CHECK(*e.offset == second);
    CHECK(contains(e, "CRC mismatch in compressed chunk at file byte " + std::to_string(second)));
  }
  SUBCASE("a last chunk cut short is no error: the read stops before it and says where") {
    test::append_chunk(file, 0x01, std::vector<uint8_t>(40, 0));
    file.erase(file.end() - 5, file.end());
    RecordingSink sink;
    REQUIRE(test::read_ucir(test::write_bytes("trunc.ucir", file), sink).ok());
    CHECK(sink.property("cut short at byte") == std::to_string(second));
  }
  SUBCASE("reserved chunk type") {
    test::append_chunk(file, 0x33, ops);
    const Error e = read_error(test::write_bytes("reserved.ucir", file));
    CHECK(*e.offset == second);
    CHECK(contains(e, "reserved unskippable chunk type 0x33"));
  }
}

TEST_CASE("errors: op stream problems give the stream offset and the chunk's file byte") {
  std::vector<uint8_t> ops;
  OpEncoder e(ops);
  SUBCASE("unknown op") {
    e.frame_header(OP_FRAME, 0, 2);
    e.jmp(0x1000, 1);
    e.u8(42);
    const Error err = ops_error(ops);
    CHECK(*err.offset == kFirstChunk);
    CHECK(contains(err, "unknown op 42 at op stream offset 26 (decompressed; chunk at file byte 84)"));
  }
  SUBCASE("op count past the end of the frame") {
    e.frame_header(OP_FRAME, 0, 5);
    e.step(1);
    e.step(1);
    e.frame_header(OP_FRAME, 0, 1);
    e.step(1);
    const Error err = ops_error(ops);
    CHECK(contains(err, "op count past the end of the frame: OP_FRAME inside the frame at op stream offset 0, "
                        "which declared 5 ops with 2 read at op stream offset 17"));
  }
  SUBCASE("op count past the end of the stream: cut short, not an error") {
    e.frame_header(OP_FRAME, 0, 5);
    e.step(1);
    CHECK(cut_at_file_end(ops, 1));
  }
  SUBCASE("syscall op count past the end of the stream: cut short, the syscall dropped") {
    e.frame_header(OP_FRAME, 0, 2);
    e.step(1);
    e.syscall_header(1, 0, {}, 3);
    e.exit();
    CHECK(cut_at_file_end(ops, 1));
  }
  SUBCASE("unknown register number") {
    e.frame_header(OP_FRAME, 0, 1);
    e.reg(3, 1);  // UC_X86_REG_AX: not a full register
    const Error err = ops_error(ops);
    CHECK(contains(err, "OP_REG: register number 3 is not a Unicorn 1.x register ttd knows for x86_64 at op "
                        "stream offset 13"));
  }
  SUBCASE("oversized special register") {
    e.frame_header(OP_FRAME, 0, 1);
    e.spreg(40, std::vector<uint8_t>(65, 0));
    const Error err = ops_error(ops);
    CHECK(contains(err, "OP_SPREG value of 65 bytes is larger than any register (64)"));
  }
  SUBCASE("truncated op at the end: cut short, not an error") {
    e.frame_header(OP_FRAME, 0, 1);
    e.u8(OP_MEM_WRITE), e.u64(0x1000), e.u32(100), e.u8(1);
    CHECK(cut_at_file_end(ops, 0));
  }
  SUBCASE("huge write length cannot make the reader allocate it") {
    e.frame_header(OP_FRAME, 0, 1);
    e.u8(OP_MEM_WRITE), e.u64(0x1000), e.u32(0xffffffffu);
    CHECK(cut_at_file_end(ops, 0));
  }
  SUBCASE("step inside a syscall") {
    e.frame_header(OP_FRAME, 0, 2);
    e.step(1);
    e.syscall_header(1, 0, {}, 1);
    e.step(1);
    const Error err = ops_error(ops);
    CHECK(contains(err, "OP_STEP inside OP_SYSCALL (syscall at op stream offset 15 declared 1 ops, 0 read) at op "
                        "stream offset 31"));
  }
  SUBCASE("range wrapping the address space") {
    e.frame_header(OP_FRAME, 0, 1);
    e.mem_map(0xfffffffffffff000ull, 0x2000, 3, 0, 0, "", "");
    const Error err = ops_error(ops);
    CHECK(contains(err, "OP_MEM_MAP range of 8192 bytes wraps past the end of the address space"));
  }
}

TEST_CASE("errors: an op in a later chunk names that chunk's file offset") {
  std::vector<uint8_t> ops;
  OpEncoder e(ops);
  e.frame_header(OP_FRAME, 0, 2);
  e.mem_write(0x1000, std::vector<uint8_t>(100000, 0x42));  // spans two 64 KiB chunks
  e.u8(200);
  const std::string path = test::write_raw_ucir(ops);
  const Error err = read_error(path);
  const uint64_t stream_off = 13 + 13 + 100000;
  CHECK(contains(err, "unknown op 200 at op stream offset " + std::to_string(stream_off)));
  CHECK(*err.offset > kFirstChunk);
  CHECK(contains(err, "chunk at file byte " + std::to_string(*err.offset) + ")"));
}

TEST_CASE("errors: to_string names file, byte and message") {
  std::vector<uint8_t> ops;
  OpEncoder(ops).u8(99);
  const std::string path = test::write_raw_ucir(ops);
  const Error err = read_error(path);
  CHECK(err.to_string() ==
        path + ": at byte 84: unknown op 99 at op stream offset 0 (decompressed; chunk at file byte 84)");
}
