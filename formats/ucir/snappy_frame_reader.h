// Streaming decoder for the snappy framing format
// (https://github.com/google/snappy/blob/main/framing_format.txt), which
// usercorn writes after the UCIR header. It reads the file in large blocks
// and hands out one decompressed data chunk (at most 64 KiB) at a time, so
// memory use does not depend on the file size.
#pragma once
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "formats/ucir/byte_buffer.h"
#include "formats/ucir/chunk_source.h"
#include "state/error.h"

namespace ttd::fmt {

class SnappyFrameReader final : public ChunkSource {
 public:

  // Reads from `file` (owned, closed on destruction) starting at its current
  // position, which is byte `start` of the file `path` names (errors cite
  // absolute file offsets). `file_size` is only for progress reports.
  SnappyFrameReader(std::FILE* file, std::string path, uint64_t start, uint64_t file_size);
  ~SnappyFrameReader() override;
  SnappyFrameReader(const SnappyFrameReader&) = delete;
  SnappyFrameReader& operator=(const SnappyFrameReader&) = delete;

  // Decodes the next non-empty data chunk into dst, which must have room
  // for kMaxBlock bytes. Returns its size, or 0 at the clean end of the
  // stream. Padding and skippable chunks are passed over.
  Result<size_t> next(uint8_t* dst) override;

  const std::string& path() const override { return path_; }
  uint64_t chunk_offset() const override { return chunk_offset_; }
  uint64_t position() const override { return consumed_; }
  uint64_t file_size() const override { return file_size_; }
  uint64_t chunks() const override { return chunks_; }
  std::optional<uint64_t> cut_at() const override { return cut_at_; }
  std::optional<std::string> end_record() const override { return end_record_; }

 private:
  // Makes at least n bytes available at in_[pos_]; false at end of file.
  bool fill(size_t n);
  // Discards n bytes (skippable chunks can be up to 16 MiB).
  bool skip(size_t n);
  Error error_at(uint64_t offset, std::string message) const;

  std::FILE* file_;
  std::string path_;
  uint64_t file_size_;
  ByteBuffer in_;
  size_t pos_ = 0, end_ = 0;
  uint64_t consumed_;      // file offset of in_[pos_]
  uint64_t chunk_offset_;  // file offset of the current chunk header
  uint64_t chunks_ = 0;
  bool seen_identifier_ = false;
  bool io_error_ = false;
  std::optional<uint64_t> cut_at_;
  bool promised_end_ = false;  // ttd's end promise chunk was read
  std::optional<std::string> end_record_;
  // A skippable chunk of len bytes at in_[pos_] (header passed): ttd's end
  // promise or end record is noted, anything else passed over.
  bool take_skippable(uint8_t type, size_t len);
};

}  // namespace ttd::fmt
