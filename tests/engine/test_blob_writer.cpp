// BlobWriter's reuse of written buffers: the builder's chunk streams and
// keyframes are megabytes (above ttd's mmap threshold), so a buffer not
// reused is an mmap, page faults and an munmap per chunk.
#include <doctest/doctest.h>

#include <random>
#include <vector>

#include "engine/blob_writer.h"

using namespace ttd;

namespace {
ByteBlock block_of(size_t n) {
  ByteWriter w;
  for (size_t i = 0; i < n; ++i) w.u8(uint8_t(i));
  return w.take();
}
}  // namespace

TEST_CASE("blob writer: a large written buffer is handed back by spare() after many small blobs") {
  BlobWriter writer(nullptr, 96);  // no file: blobs are only compressed and counted
  const uint8_t small[100] = {1, 2, 3};
  // The builder's order: a step stream, the chunk's page deltas and
  // segments (small copies), then the next keyframe asks for a buffer.
  ByteBlock big = block_of(size_t(1) << 20);
  const size_t big_capacity = big.capacity;
  writer.put(std::move(big), BlobKind::Steps);
  for (int i = 0; i < 50; ++i) writer.put(ByteBlock::copy_of(small, sizeof small), BlobKind::PageDelta);
  writer.finish();  // every blob written and its buffer returned
  ByteBlock again = writer.spare(big_capacity);
  const bool handed_back = again.bytes != nullptr;  // (doctest cannot print a unique_ptr<uint8_t[]>)
  REQUIRE(handed_back);
  CHECK(again.capacity >= big_capacity);
  CHECK(writer.refs().size() == 51);
}

TEST_CASE("blob writer: small buffers are not kept for reuse") {
  BlobWriter writer(nullptr, 96);
  const uint8_t small[100] = {};
  for (int i = 0; i < 10; ++i) writer.put(ByteBlock::copy_of(small, sizeof small), BlobKind::Segment);
  writer.finish();
  const bool handed_back = writer.spare(1).bytes != nullptr;
  CHECK_FALSE(handed_back);
}

TEST_CASE("byte writer: a large buffer holding little hands over a right-sized copy and keeps its storage") {
  ByteWriter w;
  for (size_t i = 0; i < (size_t(3) << 20); ++i) w.u8(uint8_t(i));  // one big keyframe grew it
  const size_t grown = w.capacity();
  ByteBlock first = w.take();
  CHECK(first.size == size_t(3) << 20);
  CHECK(w.capacity() == grown);
  for (int i = 0; i < 100; ++i) w.u8(uint8_t(7 * i));
  ByteBlock small = w.take();  // no spare at hand, as when the writer thread holds them
  REQUIRE(small.size == 100);
  CHECK(small.capacity < grown / 4);  // not a fresh buffer of the grown size
  CHECK(w.capacity() == grown);
  CHECK(w.size() == 0);
  for (int i = 0; i < 100; ++i) CHECK(small.bytes[size_t(i)] == uint8_t(7 * i));
  // A spare large enough for the whole capacity is still swapped in.
  ByteBlock again = w.take(std::move(first));
  CHECK(again.size == 0);
  CHECK(w.capacity() >= grown);
}

// Small blobs that never shrink (random page contents) are tried one in
// eight after a window of 64 gains nothing; compressible ones bring every
// blob back to being tried within a window of samples.
TEST_CASE("blob writer: small incompressible blobs are sampled, compressible ones tried again") {
  std::FILE* f = std::tmpfile();
  REQUIRE(f);
  std::mt19937_64 rng(5);
  auto random_blob = [&] {
    ByteWriter b;
    for (int i = 0; i < 200; ++i) b.u8(uint8_t(rng()));
    return b.take();
  };
  auto text_blob = [] {
    ByteWriter b;
    for (int i = 0; i < 200; ++i) b.u8(uint8_t('a' + i % 3));
    return b.take();
  };
  {  // random only: 64 tried, then one in eight
    BlobWriter w(f, 0);
    for (int i = 0; i < 64 + 800; ++i) w.put(random_blob(), BlobKind::PageDelta);
    for (int i = 0; i < 10; ++i) w.put(text_blob(), BlobKind::Segment);  // another kind is judged on its own
    w.finish();
    REQUIRE(w.error().empty());
    CHECK(w.compress_attempts() >= 64 + 800 / 8 + 10);
    CHECK(w.compress_attempts() <= 64 + 800 / 8 + 12);  // a sample more where a window ends
    for (size_t i = 0; i < 864; ++i) CHECK(w.refs()[i].size == w.refs()[i].raw_size);  // as they are
    CHECK(w.refs()[864].size < w.refs()[864].raw_size / 2);
  }
  {  // compressible again: within a window of samples every blob is tried again
    BlobWriter w(f, 0);
    for (int i = 0; i < 64 + 800; ++i) w.put(random_blob(), BlobKind::PageDelta);
    for (int i = 0; i < 612; ++i) w.put(text_blob(), BlobKind::PageDelta);
    w.finish();
    REQUIRE(w.error().empty());
    const auto& refs = w.refs();
    REQUIRE(refs.size() == 64 + 800 + 612);
    for (size_t i = refs.size() - 100; i < refs.size(); ++i) CHECK(refs[i].size < refs[i].raw_size / 2);
    CHECK(w.compress_attempts() > 64 + 100 + 100);
  }
  std::fclose(f);
}
