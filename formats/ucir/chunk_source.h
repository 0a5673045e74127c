// Where the UCIR op window gets decompressed data from: one snappy data
// chunk (at most 64 KiB) at a time. Implemented by SnappyFrameReader (in
// the calling thread) and ChunkPrefetcher (decodes ahead on a thread).
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "state/error.h"

namespace ttd::fmt {

class ChunkSource {
 public:
  static constexpr size_t kMaxBlock = 65536;  // largest decoded chunk the format allows

  virtual ~ChunkSource() = default;
  // Decodes the next non-empty data chunk into dst (room for kMaxBlock
  // bytes). Returns its size, or 0 at the clean end of the stream.
  virtual Result<size_t> next(uint8_t* dst) = 0;
  virtual uint64_t chunk_offset() const = 0;  // file offset of the chunk last returned
  virtual uint64_t position() const = 0;      // file bytes consumed through that chunk
  virtual uint64_t chunks() const = 0;        // data chunks returned so far
  virtual uint64_t file_size() const = 0;
  virtual const std::string& path() const = 0;
  // After next() returned 0: the file ended inside its last chunk (a
  // recording killed or out of disk), at this offset, that chunk's start;
  // what came before it is whole. nullopt: the stream ended cleanly.
  virtual std::optional<uint64_t> cut_at() const { return std::nullopt; }
  // After next() returned 0: the text of ttd's end record
  // (ucir_end_record.h), nullopt when the stream has none. A stream that
  // promised one and ends without it is cut short (cut_at: its end).
  virtual std::optional<std::string> end_record() const { return std::nullopt; }
};

}  // namespace ttd::fmt
