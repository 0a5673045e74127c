// Index blob codecs (engine/blob_codec.h, index version 12): a codec byte
// in front of every compressed blob, snappy or zstd; each round-trips, and
// corrupt or crafted data of each is refused with a reason, never a crash
// or a huge allocation.
#include <doctest/doctest.h>
#include <unistd.h>

#include <random>
#include <string>
#include <vector>

#include "engine/blob_codec.h"
#include "engine/blob_reader.h"
#include "engine/blob_writer.h"
#include "engine/index_layout.h"

using namespace ttd;

namespace {

// Compressible: a step-stream-like mix of repeated records and counters.
std::string compressible(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::string s;
  while (s.size() < n) {
    s += "\x12\x34";
    s += char(rng() % 4);
    s += std::to_string(s.size() / 7);
  }
  s.resize(n);
  return s;
}

// Decompresses `stored` the way IndexFile::read_blob does: headroom first.
const char* decode(const std::string& stored, size_t raw_size, std::string& out) {
  std::string buf(kBlobHeadroom, '\0');
  buf += stored;
  return decompress_blob(buf.data() + kBlobHeadroom, stored.size(), raw_size, out);
}

std::string compress(BlobCompressor& c, const std::string& raw, BlobCodec codec) {
  REQUIRE(c.compress(raw.data(), raw.size(), codec));
  return std::string(c.stored(), c.stored_size());
}

}  // namespace

TEST_CASE("blob codecs: snappy and zstd round-trip blobs of every size, codec byte first") {
  BlobCompressor c;
  for (BlobCodec codec : {BlobCodec::Snappy, BlobCodec::Zstd}) {
    for (size_t n : {100, 1000, 4096, 70000, 300000}) {
      CAPTURE(int(codec));
      CAPTURE(n);
      const std::string raw = compressible(n, uint32_t(n));
      const std::string stored = compress(c, raw, codec);
      CHECK(stored.size() < raw.size());
      CHECK(uint8_t(stored[0]) == uint8_t(codec));
      std::string out = "left over from another blob";
      CHECK(decode(stored, raw.size(), out) == nullptr);
      CHECK(out == raw);
    }
  }
}

TEST_CASE("blob codecs: zstd blobs leave out the frame's magic number and are smaller than snappy's") {
  BlobCompressor c;
  const std::string raw = compressible(20000, 3);
  const std::string z = compress(c, raw, BlobCodec::Zstd), s = compress(c, raw, BlobCodec::Snappy);
  CHECK(z.size() < s.size());
  CHECK(z.compare(1, 4, "\x28\xB5\x2F\xFD") != 0);
}

TEST_CASE("blob codecs: incompressible data is left to be stored as it is") {
  BlobCompressor c;
  std::mt19937_64 rng(5);
  std::string raw(4096, '\0');
  for (auto& ch : raw) ch = char(rng());
  CHECK_FALSE(c.compress(raw.data(), raw.size(), BlobCodec::Zstd));
  CHECK_FALSE(c.compress(raw.data(), raw.size(), BlobCodec::Snappy));
  CHECK_FALSE(c.compress("", 0, BlobCodec::Zstd));
}

TEST_CASE("blob codecs: zstd that would expand more than the reader allows is written with snappy") {
  BlobCompressor c;
  const std::string zeros(size_t(1) << 20, '\0');  // zstd: ~60 bytes, over 512 x
  const std::string stored = compress(c, zeros, BlobCodec::Zstd);
  CHECK(uint8_t(stored[0]) == uint8_t(BlobCodec::Snappy));
  CHECK(zeros.size() <= blob_max_raw_size(BlobCodec::Snappy, stored.size()));
  std::string out;
  CHECK(decode(stored, zeros.size(), out) == nullptr);
  CHECK(out == zeros);
}

TEST_CASE("blob codecs: corrupt blobs of each codec are refused with a reason") {
  BlobCompressor c;
  const std::string raw = compressible(30000, 9);
  for (BlobCodec codec : {BlobCodec::Snappy, BlobCodec::Zstd}) {
    CAPTURE(int(codec));
    const std::string good = compress(c, raw, codec);
    std::string out;
    SUBCASE("truncated") {
      const char* why = decode(good.substr(0, good.size() - 1), raw.size(), out);
      REQUIRE(why);
      CHECK(std::string(why).find("decompress") != std::string::npos);
    }
    SUBCASE("raw size in the reference one byte off") {
      CHECK(decode(good, raw.size() + 1, out));
      CHECK(decode(good, raw.size() - 1, out));
    }
    SUBCASE("a size the codec cannot reach") {
      const char* why = decode(good, blob_max_raw_size(codec, good.size()) + 1, out);
      REQUIRE(why);
      CHECK(std::string(why) == "blob claims an impossible size");
    }
    SUBCASE("header bytes flipped") {
      for (size_t i = 1; i < 4; ++i) {
        std::string bad = good;
        bad[i] = char(bad[i] ^ 0xff);
        CAPTURE(i);
        CHECK(decode(bad, raw.size(), out));  // never a crash; an error or another size
      }
    }
    SUBCASE("every byte flipped in turn: an error or raw_size bytes, never a crash") {
      for (size_t i = 0; i < good.size(); i += 7) {
        std::string bad = good;
        bad[i] = char(bad[i] ^ 0x5a);
        if (!decode(bad, raw.size(), out)) CHECK(out.size() == raw.size());
      }
    }
  }
  std::string out;
  const char* why = decode(std::string("\x07" "abcdef", 7), 100, out);
  REQUIRE(why);
  CHECK(std::string(why) == "blob has an unknown codec byte");
  CHECK(decode(std::string("\x02", 1), 1, out));  // not smaller than its raw size: not a compressed blob
}

TEST_CASE("blob writer: every kind is compressed with the codec chosen for it, and small blobs always are") {
  std::FILE* f = std::tmpfile();
  REQUIRE(f);
  const BlobKind kinds[] = {BlobKind::Steps,     BlobKind::Keyframe,  BlobKind::Segment,
                            BlobKind::Page,      BlobKind::Summaries, BlobKind::PageDelta,
                            BlobKind::SummaryFilters};
  std::mt19937_64 rng(2);
  std::vector<std::string> blobs;
  BlobWriter w(f, 0);
  for (BlobKind k : kinds) {
    blobs.push_back(compressible(5000, uint32_t(k)));
    w.put(ByteBlock::copy_of(reinterpret_cast<const uint8_t*>(blobs.back().data()), blobs.back().size()), k);
  }
  // Small page deltas: ten incompressible ones in a row do not stop the
  // writer from compressing the next.
  for (int i = 0; i < 10; ++i) {
    std::string r(60, '\0');
    for (auto& ch : r) ch = char(rng());
    blobs.push_back(r);
    w.put(ByteBlock::copy_of(reinterpret_cast<const uint8_t*>(r.data()), r.size()), BlobKind::PageDelta);
  }
  blobs.push_back(std::string(200, 'x'));
  w.put(ByteBlock::copy_of(reinterpret_cast<const uint8_t*>(blobs.back().data()), 200), BlobKind::PageDelta);
  w.finish();
  REQUIRE(w.error().empty());
  std::fflush(f);
  const auto& refs = w.refs();
  REQUIRE(refs.size() == blobs.size());
  for (size_t i = 0; i < refs.size(); ++i) {
    CAPTURE(i);
    std::string stored(refs[i].size, '\0');
    REQUIRE(std::fseek(f, long(refs[i].offset), SEEK_SET) == 0);
    REQUIRE(std::fread(stored.data(), 1, stored.size(), f) == stored.size());
    if (i >= 7 && i < 17) {
      CHECK(refs[i].size == refs[i].raw_size);  // incompressible: as it is
      continue;
    }
    REQUIRE(refs[i].size < refs[i].raw_size);
    const BlobKind kind = i < 7 ? kinds[i] : BlobKind::PageDelta;
    CHECK(uint8_t(stored[0]) == uint8_t(blob_codec_for(kind)));
    std::string out;
    CHECK(decode(stored, refs[i].raw_size, out) == nullptr);
    CHECK(out == blobs[i]);
  }
  std::fclose(f);
}

// engine/blob_reader.h: the one read path of IndexFile::read_blob and the
// build's read-back of its keyframes (mapped_files_at_build).
TEST_CASE("blob reader: stored and compressed blobs read back from a file, short reads and bad checksums named") {
  char path[] = "/tmp/ttd-blob-reader-XXXXXX";
  const int fd = ::mkstemp(path);
  REQUIRE(fd >= 0);
  ::unlink(path);
  BlobCompressor c;
  const std::string raw = compressible(50000, 3), plain = "stored as it is";
  const std::string zstd = compress(c, raw, BlobCodec::Zstd);
  // Blobs at odd offsets behind some other bytes, as in an index's data region.
  const std::string file = std::string(77, 'h') + plain + zstd;
  REQUIRE(::pwrite(fd, file.data(), file.size(), 0) == ssize_t(file.size()));
  const BlobRef plain_ref{77, uint32_t(plain.size()), uint32_t(plain.size()), blob_checksum(plain.data(), plain.size(), 77)};
  const uint64_t at = 77 + plain.size();
  const BlobRef zstd_ref{at, uint32_t(zstd.size()), uint32_t(raw.size()), blob_checksum(zstd.data(), zstd.size(), at)};
  std::string buffer, out;
  CHECK(read_stored_blob(fd, plain_ref, buffer, out) == nullptr);
  CHECK(out == plain);
  CHECK(read_stored_blob(fd, zstd_ref, buffer, out) == nullptr);
  CHECK(out == raw);
  BlobRef past_end = zstd_ref;
  past_end.size += 1;  // one byte beyond the file
  CHECK(std::string(read_stored_blob(fd, past_end, buffer, out)) == "cannot read the blob");
  BlobRef moved = plain_ref;
  moved.offset += 1, moved.size -= 1, moved.raw_size -= 1;  // the checksum is seeded with the offset
  CHECK(read_stored_blob(fd, moved, buffer, out) != nullptr);
  ::close(fd);
}
