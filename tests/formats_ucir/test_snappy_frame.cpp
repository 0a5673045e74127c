#include <doctest/doctest.h>

#include <cstdio>
#include <random>
#include <vector>

#include "formats/ucir/chunk_prefetcher.h"
#include "formats/ucir/snappy_frame_reader.h"
#include "formats/ucir/snappy_frame_writer.h"
#include "tests/support/one_cpu_affinity.h"
#include "ucir_test_support.h"

using namespace ttd;
using namespace ttd::fmt;
using ttd::test::append_chunk;
using ttd::test::append_stream_identifier;

namespace {

std::vector<uint8_t> encode(const std::vector<uint8_t>& data, size_t piece, bool background = false) {
  std::FILE* f = std::tmpfile();
  SnappyFrameWriter w(f, "tmp", background);
  for (size_t i = 0; i < data.size(); i += piece)
    w.write({data.data() + i, std::min(piece, data.size() - i)});
  REQUIRE(w.finish().ok());
  std::vector<uint8_t> out(size_t(std::ftell(f)));
  std::rewind(f);
  if (!out.empty()) REQUIRE(std::fread(out.data(), 1, out.size(), f) == out.size());
  std::fclose(f);
  return out;
}

// Decodes a framed stream held in memory; returns the data or the error.
// `threaded` puts a ChunkPrefetcher (with its decode thread, handing over
// `batch` chunks at a time) in between.
Result<std::vector<uint8_t>> decode(const std::vector<uint8_t>& framed, bool threaded = false, size_t batch = 16) {
  std::FILE* f = std::tmpfile();
  if (!framed.empty()) std::fwrite(framed.data(), 1, framed.size(), f);
  std::rewind(f);
  SnappyFrameReader r(f, "mem.sz", 0, framed.size());
  ChunkPrefetcher p(r, 3, 0, batch);
  ChunkSource& src = threaded ? static_cast<ChunkSource&>(p) : r;
  std::vector<uint8_t> out, block(SnappyFrameReader::kMaxBlock);
  for (;;) {
    auto n = src.next(block.data());
    if (!n) {
      // Errors stick.
      auto again = src.next(block.data());
      CHECK(!again.ok());
      return n.error();
    }
    if (*n == 0) return out;
    out.insert(out.end(), block.begin(), block.begin() + long(*n));
  }
}

std::vector<uint8_t> mixed_data(size_t n) {
  std::mt19937 rng(1);
  std::vector<uint8_t> d(n);
  for (size_t i = 0; i < n; ++i) d[i] = (i / 4096) % 2 ? uint8_t(rng()) : uint8_t(i / 64);
  return d;
}

}  // namespace

TEST_CASE("snappy framing: round trip at block boundaries, compressible and random data") {
  for (size_t n : {size_t(0), size_t(1), size_t(65535), size_t(65536), size_t(65537), size_t(300000)}) {
    for (size_t piece : {size_t(7), size_t(65536), size_t(1 << 20)}) {
      const auto data = mixed_data(n);
      const auto framed = encode(data, piece);
      auto back = decode(framed);
      REQUIRE(back.ok());
      CHECK(*back == data);
    }
  }
}

TEST_CASE("snappy framing: the decode thread delivers the same chunks, offsets and errors") {
  const auto data = mixed_data(500000);
  auto framed = encode(data, 65536);
  auto plain = decode(framed, false);
  REQUIRE(plain.ok());
  // 8 chunks: one batch, batches of 2 (the end arrives alone) and of 3.
  for (size_t batch : {size_t(16), size_t(2), size_t(3), size_t(1)}) {
    auto threaded = decode(framed, true, batch);
    REQUIRE(threaded.ok());
    CHECK(*threaded == data);
  }
  framed[framed.size() - 100] ^= 0x40;  // corrupt the last chunk
  auto e1 = decode(framed, false);
  REQUIRE(!e1.ok());
  for (size_t batch : {size_t(16), size_t(2), size_t(3)}) {
    auto e2 = decode(framed, true, batch);
    REQUIRE(!e2.ok());
    CHECK(e1.error().to_string() == e2.error().to_string());
  }
  // With one CPU the prefetcher decodes in the caller's thread, alike.
  {
    test::OneCpuAffinity one;
    REQUIRE(one.pinned());
    std::FILE* f1 = std::tmpfile();
    std::fwrite(framed.data(), 1, framed.size(), f1);
    std::rewind(f1);
    SnappyFrameReader r1(f1, "mem.sz", 0, framed.size());
    ChunkPrefetcher p(r1, 3, 0, 2);
    std::vector<uint8_t> block(ChunkSource::kMaxBlock);
    auto n = p.next(block.data());
    REQUIRE(n.ok());
    CHECK(*n == 65536);
    CHECK(!p.threaded());
  }
  // Dropping a prefetcher mid-stream stops its thread.
  std::FILE* f = std::tmpfile();
  std::fwrite(framed.data(), 1, framed.size(), f);
  std::rewind(f);
  SnappyFrameReader r(f, "mem.sz", 0, framed.size());
  {
    ChunkPrefetcher p(r, 2, 0);
    std::vector<uint8_t> block(ChunkSource::kMaxBlock);
    auto n = p.next(block.data());
    REQUIRE(n.ok());
    CHECK(*n == 65536);
    CHECK(p.chunks() == 1);
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 1) CHECK(p.threaded());
  }
}

TEST_CASE("snappy framing: stream identifier, uncompressed and compressed chunks, skippable and padding") {
  std::vector<uint8_t> s;
  append_stream_identifier(s);
  const std::vector<uint8_t> a = {1, 2, 3}, b(1000, 9);
  append_chunk(s, 0x01, a);
  append_chunk(s, 0xfe, std::vector<uint8_t>(17, 0));  // padding
  append_chunk(s, 0x80, std::vector<uint8_t>(5, 1));   // reserved skippable
  append_stream_identifier(s);                          // concatenated streams are fine
  append_chunk(s, 0x00, b);
  auto back = decode(s);
  REQUIRE(back.ok());
  std::vector<uint8_t> want = a;
  want.insert(want.end(), b.begin(), b.end());
  CHECK(*back == want);
}

TEST_CASE("snappy framing: errors name the chunk's file offset") {
  std::vector<uint8_t> good;
  append_stream_identifier(good);
  append_chunk(good, 0x00, std::vector<uint8_t>(100, 4));
  const size_t second = good.size();

  SUBCASE("bad CRC") {
    auto s = good;
    append_chunk(s, 0x00, std::vector<uint8_t>(50, 5), true);
    auto r = decode(s);
    REQUIRE(!r.ok());
    CHECK(r.error().offset == second);
    CHECK(r.error().message.find("CRC mismatch in compressed chunk at file byte " + std::to_string(second)) !=
          std::string::npos);
  }
  SUBCASE("reserved unskippable chunk type") {
    auto s = good;
    append_chunk(s, 0x02, std::vector<uint8_t>(3, 0));
    auto r = decode(s);
    REQUIRE(!r.ok());
    CHECK(r.error().offset == second);
    CHECK(r.error().message.find("reserved unskippable chunk type 0x02") != std::string::npos);
  }
  SUBCASE("a last chunk cut short ends the stream before it (cut_at), no error") {
    for (bool threaded : {false, true}) {
      auto s = good;
      append_chunk(s, 0x01, std::vector<uint8_t>(50, 5));
      s.erase(s.end() - 10, s.end());  // cut the chunk short
      auto r = decode(s, threaded);
      REQUIRE(r.ok());
      CHECK(*r == std::vector<uint8_t>(100, 4));
      std::FILE* f = std::tmpfile();
      std::fwrite(s.data(), 1, s.size(), f);
      std::rewind(f);
      SnappyFrameReader direct(f, "mem.sz", 0, s.size());
      std::vector<uint8_t> block(SnappyFrameReader::kMaxBlock);
      while (*direct.next(block.data()) != 0) {
      }
      CHECK(direct.cut_at() == std::optional<uint64_t>(second));
    }
  }
  SUBCASE("a partial chunk header at the end: the same") {
    auto s = good;
    s.push_back(0x00);
    s.push_back(0x05);
    auto r = decode(s);
    REQUIRE(r.ok());
    CHECK(*r == std::vector<uint8_t>(100, 4));
  }
  SUBCASE("chunk length over the format's limit") {
    auto s = good;
    const uint8_t head[4] = {0x01, 0xff, 0xff, 0x7f};
    s.insert(s.end(), head, head + 4);
    auto r = decode(s);
    REQUIRE(!r.ok());
    CHECK(r.error().message.find("exceeds the format's limit") != std::string::npos);
  }
  SUBCASE("no stream identifier") {
    std::vector<uint8_t> s;
    append_chunk(s, 0x01, std::vector<uint8_t>(5, 5));
    auto r = decode(s);
    REQUIRE(!r.ok());
    CHECK(r.error().offset == 0u);
    CHECK(r.error().message.find("stream identifier") != std::string::npos);
  }
  SUBCASE("corrupt snappy payload") {
    auto s = good;
    std::vector<uint8_t> body = {0, 0, 0, 0, 0x40, 0xff, 0xff};  // CRC, then a bogus block
    s.push_back(0x00);
    s.push_back(uint8_t(body.size()));
    s.push_back(0);
    s.push_back(0);
    s.insert(s.end(), body.begin(), body.end());
    auto r = decode(s);
    REQUIRE(!r.ok());
    CHECK(r.error().offset == second);
    CHECK(r.error().message.find("corrupt snappy") != std::string::npos);
  }
}

TEST_CASE("snappy framing: background compression writes the same bytes as inline") {
  // Compressible and incompressible stretches, fed in pieces that do and do
  // not line up with the 64 KiB blocks; more blocks than the worker's queue.
  std::mt19937 rng(7);
  std::vector<uint8_t> data;
  for (int part = 0; part < 80; ++part) {
    const size_t n = 1000 + rng() % 70000;
    for (size_t i = 0; i < n; ++i) data.push_back(part % 3 == 0 ? uint8_t(rng()) : uint8_t(i / 7));
  }
  REQUIRE(data.size() / SnappyFrameWriter::kBlock > SnappyFrameWriter::kMaxQueued);
  for (size_t piece : {size_t(1) << 20, size_t(65536), size_t(4093), size_t(13)}) {
    CAPTURE(piece);
    const auto inline_bytes = encode(data, piece, false);
    CHECK(encode(data, piece, true) == inline_bytes);
    auto back = decode(inline_bytes);
    REQUIRE(back.ok());
    CHECK(*back == data);
  }
  CHECK(encode({}, 1, true).empty());
}
