// Encoder for the snappy framing format: the stream identifier, then one
// chunk per 64 KiB block of input, compressed with libsnappy (or stored
// raw when compression does not pay), each with its masked CRC-32C.
#pragma once
#include <cstdint>
#include <cstdio>
#include <span>
#include <string>
#include <vector>

#include "state/error.h"

namespace ttd::fmt {

class SnappyFrameWriter {
 public:
  static constexpr size_t kBlock = 65536;

  // Writes to `file` (not owned) from its current position; `path` names it
  // in errors.
  SnappyFrameWriter(std::FILE* file, std::string path);
  void write(std::span<const uint8_t> data);
  // Writes the buffered partial block. Errors stick until finish().
  void flush();
  // Flushes and reports the first I/O error, if any.
  Status finish();
  uint64_t bytes_in() const { return bytes_in_; }

 private:
  void emit_block(const uint8_t* data, size_t n);
  void put(const void* p, size_t n);

  std::FILE* file_;
  std::string path_;
  std::vector<uint8_t> block_;
  std::string compressed_;
  uint64_t bytes_in_ = 0;
  bool wrote_identifier_ = false;
  bool failed_ = false;
};

}  // namespace ttd::fmt
