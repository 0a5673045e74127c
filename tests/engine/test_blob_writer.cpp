// BlobWriter's reuse of written buffers: the builder's chunk streams and
// keyframes are megabytes (above ttd's mmap threshold), so a buffer not
// reused is an mmap, page faults and an munmap per chunk.
#include <doctest/doctest.h>

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
