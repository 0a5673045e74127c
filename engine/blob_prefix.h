// A blob inflated from its start only as far as its reader needs: a seek
// replays a chunk's step stream up to its target, on average half of it,
// and a zstd stream written in blocks (blob_zstd_block, engine/blob_writer.h)
// can be inflated a block at a time. Blobs of one block, snappy blobs and
// blobs stored as they are come out whole at open(), as read_blob gives
// them.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "engine/index_layout.h"
#include "engine/step_stream_source.h"

namespace ttd {

class BlobPrefix {
 public:
  BlobPrefix();
  ~BlobPrefix();
  BlobPrefix(const BlobPrefix&) = delete;
  BlobPrefix& operator=(const BlobPrefix&) = delete;

  // Reads the blob's stored bytes at ref from fd and checks their checksum
  // (bounds against the file are the caller's); a zstd blob is inflated
  // no further than its frame header. Returns nullptr, or what is wrong.
  const char* open(int fd, const BlobRef& ref);
  // The same from stored bytes in memory (tests; the reader's own path).
  const char* open_stored(const char* stored, size_t size, size_t raw_size, uint32_t checksum, uint64_t offset);

  // The raw bytes inflated so far: available() of size(). They stay where
  // they are until the next open(): pointers into them stay valid.
  const uint8_t* data() const { return reinterpret_cast<const uint8_t*>(bytes_); }
  size_t available() const { return available_; }
  size_t size() const { return raw_size_; }
  bool complete() const { return available_ == raw_size_; }

  // Inflates blocks until at least `bytes` raw bytes (all of them if the
  // blob has fewer) are available. Returns nullptr, or what is wrong (a
  // frame that does not inflate to the blob's raw size); after an error
  // nothing more comes out until the next open().
  const char* inflate_to(size_t bytes);
  // What went wrong in the last open() or inflate_to(), or nullptr.
  const char* error() const { return error_; }

 private:
  const char* start_zstd();
  void* dctx_ = nullptr;  // ZSTD_DCtx, made at the first zstd blob
  std::string stored_;    // stored bytes behind kBlobHeadroom (capacity reused)
  size_t in_at_ = 0, in_end_ = 0;  // the frame's bytes in stored_ not consumed yet
  std::unique_ptr<char[]> raw_;
  const char* bytes_ = nullptr;  // raw_, or the stored bytes of a blob stored as it is
  size_t raw_capacity_ = 0, raw_size_ = 0, available_ = 0;
  const char* error_ = nullptr;
};

// A step decoder's view of a stream blob: inflated as the replay gets to it
// (the cursor's and fuzz_index's).
struct BlobPrefixSource final : StepStreamSource {
  BlobPrefix blob;
  bool make_available(size_t bytes) override { return blob.inflate_to(bytes) == nullptr; }
  size_t available() const override { return blob.available(); }
  bool complete() const override { return blob.complete(); }
};

}  // namespace ttd
