// Index version 12 (engine/blob_codec.h): blobs carry their codec byte, so
// blobs of either codec read back within the version; corrupt compressed
// data is reported by the read that touches it, naming the index file and
// the blob's offset; an index of version 11 is rebuilt.
#include <doctest/doctest.h>

#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <vector>

#include "../fuzz/index_checksum_fixup.h"
#include "engine/blob_codec.h"
#include "engine/cursor.h"
#include "engine/index_file.h"
#include "temp_synthetic_trace.h"

// A namespace of its own: CI's unity build compiles it with its suite's other files.
namespace test_index_codecs {

using namespace ttd;

namespace {

struct TempTrace : test::TempSynthTrace {
  TempTrace() : TempSynthTrace(test::make_synthetic(2000, 2, 17)) {}
  OpenOptions options() const { return TempSynthTrace::options(64); }
  std::string index() const { return path + ".ttdidx"; }
};

std::vector<uint8_t> slurp(const std::string& p) {
  std::ifstream f(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), {}};
}
void spill(const std::string& p, const std::vector<uint8_t>& bytes) {
  std::ofstream f(p, std::ios::binary | std::ios::trunc);
  f.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  REQUIRE(f.good());
}

// Chunk c's stream blob, as stored, and decompressed.
struct StreamBlob {
  BlobRef ref;
  uint8_t codec = 0;
  std::string raw;
};
StreamBlob stream_of(const TempTrace& tt, size_t c) {
  auto t = Trace::open(tt.path, tt.options());
  REQUIRE(t.ok());
  StreamBlob b;
  b.ref = (*t)->index().chunk(c).stream;
  REQUIRE((*t)->index().read_blob(b.ref, b.raw));
  b.codec = slurp(tt.index())[b.ref.offset];
  return b;
}

// The last chunk whose stream is compressed (a short stream may not be).
size_t compressed_chunk(const TempTrace& tt) {
  auto t = Trace::open(tt.path, tt.options());
  REQUIRE(t.ok());
  const IndexFile& idx = (*t)->index();
  for (size_t c = idx.chunk_count(); c-- > 0;)
    if (idx.chunk(c).stream.size < idx.chunk(c).stream.raw_size) return c;
  FAIL("no chunk's stream is compressed");
  return 0;
}

// Rewrites chunk c's stream reference with `edit` (checksums made to
// agree, as a crafted file can).
void edit_stream(const TempTrace& tt, size_t c, const std::function<void(std::vector<uint8_t>&, BlobRef&)>& edit) {
  std::vector<uint8_t> f = slurp(tt.index());
  bool seen = false;
  fuzz::fix_up_index_checksums(f, [&](IndexTable t, uint64_t entry, BlobRef& ref) {
    // A chunk entry holds the stream first, then the keyframe.
    if (t != IndexTable::Chunks || entry != c || seen) return;
    seen = true;
    edit(f, ref);
  });
  REQUIRE(seen);
  spill(tt.index(), f);
}

}  // namespace

TEST_CASE("index v12: step streams are zstd blobs, a truncated one is reported with the index file and its offset") {
  TempTrace tt;
  const size_t c = compressed_chunk(tt);
  const StreamBlob b = stream_of(tt, c);
  REQUIRE(b.ref.size < b.ref.raw_size);
  CHECK(b.codec == uint8_t(BlobCodec::Zstd));
  edit_stream(tt, c, [](std::vector<uint8_t>&, BlobRef& ref) { ref.size -= 1; });
  auto t = Trace::open(tt.path, tt.options());
  REQUIRE(t.ok());
  CHECK((*t)->stats().reused);
  Cursor cur(*t);
  CHECK(cur.seek(c == 0 ? 1999 : 0).ok());
  auto s = cur.seek(c * 64 + 63);
  REQUIRE_FALSE(s.ok());
  const std::string msg = s.error().to_string();
  CHECK(msg.find(tt.index()) != std::string::npos);
  CHECK(msg.find("at byte " + std::to_string(b.ref.offset)) != std::string::npos);
  CHECK(msg.find("does not decompress (zstd)") != std::string::npos);
  auto v = (*t)->index().verify();
  REQUIRE_FALSE(v.ok());
  CHECK(v.error().offset == b.ref.offset);
}

TEST_CASE("index v12: a blob another codec wrote (snappy) reads back the same, corrupt, it is reported") {
  for (const bool damage : {false, true}) {
    CAPTURE(damage);
    TempTrace tt;
    const size_t c = 30;
    const StreamBlob b = stream_of(tt, c);
    BlobCompressor snappy;
    REQUIRE(snappy.compress(b.raw.data(), b.raw.size(), BlobCodec::Snappy));
    const std::string stored(snappy.stored(), snappy.stored_size());
    REQUIRE(uint8_t(stored[0]) == uint8_t(BlobCodec::Snappy));
    uint64_t at = 0;
    edit_stream(tt, c, [&](std::vector<uint8_t>& f, BlobRef& ref) {
      at = f.size();
      f.insert(f.end(), stored.begin(), stored.end());
      ref.offset = at;
      ref.size = uint32_t(stored.size());
      if (damage) ref.size -= 1;  // a truncated snappy block
    });
    auto t = Trace::open(tt.path, tt.options());
    REQUIRE(t.ok());
    CHECK((*t)->stats().reused);
    const IndexFile& idx = (*t)->index();
    REQUIRE(idx.chunk(c).stream.offset == at);
    std::string raw;
    Cursor cur(*t);
    if (!damage) {
      CHECK(idx.read_blob(idx.chunk(c).stream, raw));
      CHECK(raw == b.raw);
      CHECK(cur.seek(c * 64 + 63).ok());
      CHECK(idx.verify().ok());
      continue;
    }
    CHECK_FALSE(idx.read_blob(idx.chunk(c).stream, raw));
    auto s = cur.seek(c * 64 + 63);
    REQUIRE_FALSE(s.ok());
    const std::string msg = s.error().to_string();
    CHECK(msg.find(tt.index()) != std::string::npos);
    CHECK(msg.find("at byte " + std::to_string(at)) != std::string::npos);
    CHECK(msg.find("does not decompress (snappy)") != std::string::npos);
  }
}

TEST_CASE("an index of version 11 (no codec bytes) is rebuilt, not read") {
  TempTrace tt;
  { REQUIRE(Trace::open(tt.path, tt.options()).ok()); }
  {
    std::fstream f(tt.index(), std::ios::in | std::ios::out | std::ios::binary);
    const uint32_t v11 = 11;
    f.seekp(std::streamoff(offsetof(IndexHeader, version)));
    f.write(reinterpret_cast<const char*>(&v11), 4);
    REQUIRE(f.good());
  }
  auto t = Trace::open(tt.path, tt.options());
  REQUIRE(t.ok());
  CHECK_FALSE((*t)->stats().reused);
  CHECK((*t)->index().verify().ok());
  IndexHeader h;
  std::ifstream(tt.index(), std::ios::binary).read(reinterpret_cast<char*>(&h), sizeof h);
  CHECK(h.version == kIndexVersion);
  CHECK(kIndexVersion >= 12);
}

}  // namespace test_index_codecs
