// Encoder for the snappy framing format: the stream identifier, then one
// chunk per 64 KiB block of input, compressed with libsnappy (or stored
// raw when compression does not pay), each with its masked CRC-32C.
//
// Background mode: full blocks are compressed, checksummed and written by
// a worker thread, in order, while the caller goes on encoding (the
// recorder: snappy was ~40 % of the trace writer's CPU). The bytes on disk
// are the same as inline mode's; at most kMaxQueued blocks wait.
#pragma once
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "state/error.h"

namespace ttd::fmt {

class SnappyFrameWriter {
 public:
  static constexpr size_t kBlock = 65536;
  static constexpr size_t kMaxQueued = 32;  // background mode: blocks waiting for the worker

  // Writes to `file` (not owned) from its current position; `path` names it
  // in errors.
  SnappyFrameWriter(std::FILE* file, std::string path, bool background = false);
  // Stops the worker (after it has written what was queued); call
  // finish() first to write the partial block and learn about errors.
  ~SnappyFrameWriter();
  SnappyFrameWriter(const SnappyFrameWriter&) = delete;
  SnappyFrameWriter& operator=(const SnappyFrameWriter&) = delete;

  void write(std::span<const uint8_t> data);
  // Writes the buffered partial block. Errors stick until finish().
  void flush();
  // The stream will end with an end record (ucir_end_record.h): call
  // before the first write.
  void promise_end_record() { promise_end_ = true; }
  // Flushes, waits for the worker, writes the end record if one was
  // promised (`end_record` its text; nullopt: none, so that the file reads
  // as not finished), and reports the first I/O error.
  Status finish(std::optional<std::string_view> end_record = std::nullopt);
  uint64_t bytes_in() const { return bytes_in_; }

 private:
  struct Worker;
  void emit_block(const uint8_t* data, size_t n);
  void start_stream();  // the identifier, and the end promise
  void put_skippable(uint8_t type, std::string_view payload);
  void put(const void* p, size_t n);
  void hand_off();  // background: queues block_, takes a fresh one
  void stop_worker();

  std::FILE* file_;
  std::string path_;
  std::vector<uint8_t> block_;
  std::vector<char> compressed_;  // the worker's in background mode
  uint64_t bytes_in_ = 0;
  bool wrote_identifier_ = false;
  bool promise_end_ = false;
  bool failed_ = false;  // written by the worker in background mode; read after it stopped
  std::unique_ptr<Worker> worker_;
};

}  // namespace ttd::fmt
