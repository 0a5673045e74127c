// A contiguous view of the decompressed UCIR op stream. Ops may straddle
// snappy chunks, so the window keeps the unread tail of one chunk and
// appends the next ones until the requested bytes are contiguous. Memory
// grows only as far as one op needs (a big OP_MEM_WRITE) and only with
// data that is really in the file, so a corrupt length cannot make it
// allocate more than the stream holds.
#pragma once
#include <cstdint>
#include <vector>

#include "formats/ucir/byte_buffer.h"
#include "formats/ucir/chunk_source.h"

namespace ttd::fmt::ucir {

class OpWindow {
 public:
  explicit OpWindow(ChunkSource& src);
  // A window over `size` bytes already in memory (a segment's ops,
  // ucir_segments.h): nothing is copied and the stream ends after them;
  // `src` only names the file.
  OpWindow(ChunkSource& src, const uint8_t* data, size_t size);

  const uint8_t* cur() const { return data_ + pos_; }
  size_t avail() const { return end_ - pos_; }
  // Makes n bytes available at cur(). Sets `got` false (no error) when the
  // stream ends first; an Error for framing problems.
  Status fill(size_t n, bool& got) {
    if (end_ - pos_ >= n) return got = true, Status{};
    return fill_slow(n, got);
  }
  void advance(size_t n) { pos_ += n; }

  uint64_t offset() const { return base_ + pos_; }  // stream offset of cur()
  // File offset of the snappy chunk holding stream offset `off` (which
  // must be at or after the window's start).
  uint64_t chunk_file_offset(uint64_t off) const;
  const std::string& path() const { return src_.path(); }
  ChunkSource& source() { return src_; }

 private:
  Status fill_slow(size_t n, bool& got);

  struct ChunkStart {
    uint64_t stream, file;
  };
  ChunkSource& src_;
  ByteBuffer buf_;
  const uint8_t* data_ = nullptr;  // buf_.data(), or the bytes borrowed
  bool borrowed_ = false;
  size_t pos_ = 0, end_ = 0;
  uint64_t base_ = 0;  // stream offset of buf_[0]
  std::vector<ChunkStart> chunks_;
  bool eof_ = false;
};

}  // namespace ttd::fmt::ucir
