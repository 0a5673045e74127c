// A step stream inflated only as far as a seek replays it (session 20):
// the writer ends a zstd block every few KiB of a stream
// (BlobCompressor's zstd_block), BlobPrefix inflates a block at a time,
// and the StepDecoder asks for more bytes as it gets near the end of what
// it was given (StepStreamSource). Each part gives the same bytes and
// steps as the whole blob, and damage is still reported.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "engine/blob_codec.h"
#include "engine/blob_prefix.h"
#include "engine/index_layout.h"
#include "engine/step_codec.h"

// A namespace of its own: CI's unity build compiles it with its suite's other files.
namespace test_blob_prefix {

using namespace ttd;

namespace {

// Compressible, as a step stream is: repeated records with counters.
std::string stream_like(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::string s;
  while (s.size() < n) {
    s += "\x21\x80";
    s += char(rng() % 8);
    s += std::to_string(s.size() / 5);
  }
  s.resize(n);
  return s;
}

constexpr uint64_t kOffset = 4096;  // where the blob "is" (the checksum's seed)

const char* open(BlobPrefix& p, const std::string& stored, size_t raw_size) {
  return p.open_stored(stored.data(), stored.size(), raw_size, blob_checksum(stored.data(), stored.size(), kOffset),
                       kOffset);
}

std::string whole(const std::string& stored, size_t raw_size) {
  std::string buf(kBlobHeadroom, '\0');
  buf += stored;
  std::string out;
  REQUIRE(decompress_blob(buf.data() + kBlobHeadroom, stored.size(), raw_size, out) == nullptr);
  return out;
}

}  // namespace

TEST_CASE("a zstd blob written in blocks inflates a block at a time, to the bytes of the whole blob") {
  const std::string raw = stream_like(20000, 1);
  BlobCompressor c;
  REQUIRE(c.compress(raw.data(), raw.size(), BlobCodec::Zstd, -1, 4096));
  const std::string stored(c.stored(), c.stored_size());
  REQUIRE(uint8_t(stored[0]) == uint8_t(BlobCodec::Zstd));
  CHECK(whole(stored, raw.size()) == raw);  // read_blob's path reads it as before

  BlobPrefix p;
  REQUIRE(open(p, stored, raw.size()) == nullptr);
  CHECK(p.size() == raw.size());
  CHECK(p.available() == 0);
  REQUIRE(p.inflate_to(1) == nullptr);
  CHECK(p.available() == 4096);  // one block, not the stream
  CHECK_FALSE(p.complete());
  REQUIRE(p.inflate_to(5000) == nullptr);
  CHECK(p.available() == 8192);
  const uint8_t* before = p.data();
  REQUIRE(p.inflate_to(SIZE_MAX) == nullptr);
  CHECK(p.complete());
  CHECK(p.data() == before);  // bytes handed out stay where they are
  CHECK(std::string(reinterpret_cast<const char*>(p.data()), p.size()) == raw);

  // A blob of one block (as every stream of an older index) comes out
  // whole at the first request.
  BlobCompressor one;
  REQUIRE(one.compress(raw.data(), raw.size(), BlobCodec::Zstd, -1));
  const std::string single(one.stored(), one.stored_size());
  REQUIRE(open(p, single, raw.size()) == nullptr);
  REQUIRE(p.inflate_to(1) == nullptr);
  CHECK(p.complete());
  CHECK(std::string(reinterpret_cast<const char*>(p.data()), p.size()) == raw);
}

TEST_CASE("blobs stored as they are, snappy blobs and damaged zstd blobs through BlobPrefix") {
  const std::string raw = stream_like(9000, 2);
  BlobPrefix p;
  SUBCASE("stored as it is: all there at open") {
    REQUIRE(open(p, raw, raw.size()) == nullptr);
    CHECK(p.complete());
    CHECK(std::memcmp(p.data(), raw.data(), raw.size()) == 0);
  }
  SUBCASE("snappy: whole at open") {
    BlobCompressor c;
    REQUIRE(c.compress(raw.data(), raw.size(), BlobCodec::Snappy));
    REQUIRE(open(p, std::string(c.stored(), c.stored_size()), raw.size()) == nullptr);
    CHECK(p.complete());
    CHECK(std::memcmp(p.data(), raw.data(), raw.size()) == 0);
  }
  BlobCompressor c;
  REQUIRE(c.compress(raw.data(), raw.size(), BlobCodec::Zstd, -1, 2048));
  std::string stored(c.stored(), c.stored_size());
  SUBCASE("checksum") {
    CHECK(std::string(p.open_stored(stored.data(), stored.size(), raw.size(), 0, kOffset)) ==
          "blob checksum mismatch");
  }
  SUBCASE("truncated: the blocks before the cut come out, then the error") {
    stored.resize(stored.size() - 1);
    REQUIRE(open(p, stored, raw.size()) == nullptr);
    CHECK(p.inflate_to(2048) == nullptr);
    const char* e = p.inflate_to(SIZE_MAX);
    REQUIRE(e != nullptr);
    CHECK(std::string(e) == "blob does not decompress (zstd)");
    CHECK(p.inflate_to(SIZE_MAX) == e);  // stays failed
  }
  SUBCASE("a raw size the frame does not reach") {
    REQUIRE(open(p, stored, raw.size() + 10) == nullptr);
    const char* e = p.inflate_to(SIZE_MAX);
    REQUIRE(e != nullptr);
    CHECK(std::string(e) == "blob size does not match its reference");
  }
  SUBCASE("a raw size shorter than the frame") {
    REQUIRE(open(p, stored, raw.size() - 10) == nullptr);
    CHECK(p.inflate_to(SIZE_MAX) != nullptr);
  }
  SUBCASE("an impossible raw size is refused at open") {
    CHECK(open(p, stored, stored.size() * 1000) != nullptr);
  }
}

namespace {
const ArchDesc& x64() { return arch_desc(ArchId::X86_64); }

// Everything a decoder hands over, in order, as text.
struct Log : EffectVisitor {
  std::string s;
  void reg(uint32_t tidx, uint16_t reg, const uint8_t* value, uint32_t len) override {
    uint64_t v = 0;
    std::memcpy(&v, value, std::min<uint32_t>(len, 8));
    s += "r" + std::to_string(tidx) + ":" + std::to_string(reg) + "=" + std::to_string(v) + ";";
  }
  void mem_write(uint64_t pid, uint64_t addr, const uint8_t* bytes, uint64_t len) override {
    s += "w" + std::to_string(pid) + ":" + std::to_string(addr) + "=" +
         std::string(reinterpret_cast<const char*>(bytes), len) + ";";
  }
};

// A chunk with short register steps, memory writes (one of 3,000 bytes,
// longer than the decoder's slack) and attributes.
std::vector<uint8_t> encode_mixed(size_t steps) {
  StepEncoder enc(x64());
  enc.reset();
  const uint16_t rax = *x64().find("rax"), rbx = *x64().find("rbx");
  uint64_t pc = 0x400000;
  for (size_t i = 0; i < steps; ++i) {
    enc.begin_step(uint32_t(i % 3 == 0), 1, pc, 4, fmt::StepKind::Instruction);
    uint8_t v[8];
    const uint64_t x = i * 77;
    std::memcpy(v, &x, 8);
    enc.reg(uint32_t(i % 3 == 0), rax, v);
    if (i % 5 == 0) enc.reg(uint32_t(i % 3 == 0), rbx, v);
    if (i % 7 == 0) {
      const std::string bytes = i == 700 ? std::string(3000, char('a' + i % 26)) : "hello" + std::to_string(i);
      enc.mem_write(1, 0x10000 + i * 16, {reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()});
    }
    if (i % 11 == 0) enc.attr_u64(3, 1000 + i);
    pc += 4;
  }
  enc.end_step();
  return {enc.out().data(), enc.out().data() + enc.out().size()};
}

std::string decode_all(StepDecoder& dec) {
  Log log;
  DecodedStep s;
  size_t n = 0;
  while (dec.next(s)) {
    REQUIRE(dec.effects(s, log, 1));
    log.s += "|" + std::to_string(s.pc) + "/" + std::to_string(s.size) + "/" + std::to_string(s.tidx);
    ++n;
  }
  REQUIRE(dec.ok());
  return std::to_string(n) + ":" + log.s;
}

// Reveals a stream's bytes no faster than asked (rounded up to `step`).
struct Trickle final : StepStreamSource {
  const std::vector<uint8_t>* bytes = nullptr;
  size_t avail = 0, step = 1, asked = 0;
  bool make_available(size_t n) override {
    ++asked;
    if (n > avail) avail = std::min(bytes->size(), std::max(avail + step, n));
    return true;
  }
  size_t available() const override { return avail; }
  bool complete() const override { return avail == bytes->size(); }
};
}  // namespace

TEST_CASE("a step stream given to the decoder a few bytes at a time decodes as the whole stream") {
  const std::vector<uint8_t> stream = encode_mixed(1500);
  StepDecoder full(x64(), stream.data(), stream.size());
  const std::string want = decode_all(full);
  CHECK(want.rfind("1500:", 0) == 0);
  for (size_t step : {1, 7, 300, 5000}) {
    CAPTURE(step);
    Trickle t;
    t.bytes = &stream;
    t.step = step;
    StepDecoder dec(x64(), stream.data(), 0);
    dec.reset(stream.data(), 0, &t);
    CHECK(decode_all(dec) == want);
    CHECK(t.asked > 0);
    CHECK(t.complete());
  }
}

TEST_CASE("a step stream whose rest cannot be had stops the decoder, which reports it") {
  const std::vector<uint8_t> stream = encode_mixed(400);
  struct Broken final : StepStreamSource {
    size_t avail = 0;
    bool make_available(size_t) override { return false; }
    size_t available() const override { return avail; }
    bool complete() const override { return false; }
  } b;
  b.avail = stream.size() / 2;
  StepDecoder dec(x64(), stream.data(), 0);
  dec.reset(stream.data(), b.avail, &b);
  DecodedStep s;
  Log log;
  size_t n = 0;
  while (dec.next(s) && dec.effects(s, log, 1)) ++n;
  CHECK(n > 0);
  CHECK(n < 400);
  CHECK_FALSE(dec.ok());
}

}  // namespace test_blob_prefix
