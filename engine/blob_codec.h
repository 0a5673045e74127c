// How an index blob's bytes are compressed (engine/index_layout.h). A blob
// whose stored size equals its raw size is stored as it is; a smaller one
// starts with a codec byte (BlobCodec) and the compressed payload follows:
//   Snappy: a raw snappy block;
//   Zstd:   a zstd frame without its 4-byte magic number (it is the same in
//           every frame), without content size, checksum or dictionary id
//           (the blob's reference holds its raw size, its checksum covers
//           the stored bytes).
// Every codec byte stays readable for the life of an index version, so the
// writer may pick a codec per kind of blob (engine/blob_writer.h) and
// change its choice without a version bump.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace ttd {

enum class BlobCodec : uint8_t { Snappy = 1, Zstd = 2 };

// The largest raw size a compressed blob of `stored` bytes may claim. A
// crafted reference must not make the reader allocate gigabytes: snappy
// cannot expand more than 22 x (+ its header), and zstd blobs that would
// expand more than 512 x are written with snappy instead.
uint64_t blob_max_raw_size(BlobCodec codec, uint64_t stored);

// Writer side; one per thread (holds zstd's context and a buffer).
class BlobCompressor {
 public:
  explicit BlobCompressor(int zstd_level = 1);
  ~BlobCompressor();
  BlobCompressor(const BlobCompressor&) = delete;
  BlobCompressor& operator=(const BlobCompressor&) = delete;
  // Compresses [data, data + n) with `codec`, zstd at `zstd_level` (the
  // constructor's if 0; negative levels are zstd's fast ones), falling back to snappy where
  // the zstd blob would break blob_max_raw_size). True with the stored
  // bytes (codec byte first) in stored()/stored_size() when they are fewer
  // than n; false when the blob is better stored as it is.
  // zstd_block > 0: the zstd frame ends a block after every zstd_block raw
  // bytes, so a reader can inflate a prefix of the blob block by block
  // (BlobPrefixInflater, engine/blob_prefix.h); a step stream is read from
  // its start up to the seek's target only.
  bool compress(const void* data, size_t n, BlobCodec codec, int zstd_level = 0, size_t zstd_block = 0);
  const char* stored() const { return buf_.data() + start_; }
  size_t stored_size() const { return size_; }

 private:
  bool compress_snappy(const char* data, size_t n);
  // The frame of [p, p + n) at buf_ + 3 in blocks of `block` raw bytes;
  // its length, or a zstd error code.
  size_t compress_blocks(const char* p, size_t n, size_t block);
  void* cctx_;  // ZSTD_CCtx
  int level_;
  std::string buf_;
  size_t start_ = 0, size_ = 0;
};

// Bytes a caller of decompress_blob must leave writable before `stored`.
constexpr size_t kBlobHeadroom = 3;

// zstd's frame magic number, little-endian as in every frame: how a blob
// says it is zstd rather than snappy.
inline constexpr uint8_t kZstdFrameMagic[4] = {0x28, 0xB5, 0x2F, 0xFD};

// Decompresses a compressed blob (stored size < raw size) into `out`
// (resized to raw_size). `stored` must be preceded by kBlobHeadroom bytes
// of the caller's buffer; they and stored[0] may be overwritten. Returns
// nullptr, or what is wrong: an unknown codec byte, a claimed size the
// codec cannot reach, a payload that does not decompress to raw_size.
const char* decompress_blob(char* stored, size_t size, size_t raw_size, std::string& out);

// A blob as a reader gets it from the `size` stored bytes read from
// `offset` (placed as decompress_blob wants them): its checksum checked
// (blob_checksum, engine/index_layout.h), then copied when stored as it is
// (size == raw_size), else decompressed. Returns nullptr, or what is wrong.
const char* open_stored_blob(char* stored, size_t size, size_t raw_size, uint32_t checksum, uint64_t offset,
                             std::string& out);

}  // namespace ttd
