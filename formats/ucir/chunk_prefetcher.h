// Decodes snappy chunks on a background thread, ahead of the consumer.
// Reading, CRC-32C and decompression are about 40% of reading a UCIR
// trace; overlapping them with op parsing lets the indexer use the second
// core. Chunks travel in batches (up to `batch_chunks` chunks decoded into
// one buffer) because waking a sleeping thread costs tens of microseconds
// on a virtual machine: one hand-off per 64 KiB chunk spent more time in
// the kernel than the decompression saved. Chunks, errors and end of
// stream reach the consumer in file order, so behaviour is exactly that of
// the wrapped source.
#pragma once
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "formats/ucir/byte_buffer.h"
#include "formats/ucir/chunk_source.h"

namespace ttd::fmt {

class ChunkPrefetcher final : public ChunkSource {
 public:
  // `src` must outlive this object and is used only by the worker thread
  // (started on the first next()). depth = batches decoded ahead. Streams
  // in files smaller than `min_threaded_bytes` are decoded in the calling
  // thread: a thread would cost more than it saves. So are all streams
  // when the process may use one CPU only (nothing to overlap with).
  explicit ChunkPrefetcher(ChunkSource& src, size_t depth = 4, uint64_t min_threaded_bytes = 1 << 20,
                           size_t batch_chunks = 16);
  ~ChunkPrefetcher() override;
  ChunkPrefetcher(const ChunkPrefetcher&) = delete;
  ChunkPrefetcher& operator=(const ChunkPrefetcher&) = delete;

  Result<size_t> next(uint8_t* dst) override;
  uint64_t chunk_offset() const override { return chunk_offset_; }
  uint64_t position() const override { return position_; }
  uint64_t chunks() const override { return chunks_; }
  uint64_t file_size() const override { return file_size_; }
  // Read once the stream ended (the worker set it before handing over the end).
  std::optional<uint64_t> cut_at() const override { return src_.cut_at(); }
  std::optional<std::string> end_record() const override { return src_.end_record(); }
  const std::string& path() const override { return path_; }
  // Whether a worker thread decodes ahead (known after the first next()).
  bool threaded() const { return threaded_; }

 private:
  struct Chunk {
    size_t start = 0, size = 0;  // in the batch's buffer; size 0: end of stream (or error)
    uint64_t chunk_offset = 0, position = 0;
  };
  struct Batch {
    ByteBuffer data;
    std::vector<Chunk> chunks;    // the last one may be the end (size 0)
    std::optional<Error> error;   // after the last chunk
  };
  void work();
  void fill(Batch& b);
  Result<size_t> next_unthreaded(uint8_t* dst);

  ChunkSource& src_;
  const std::string path_;
  const uint64_t file_size_;
  const uint64_t min_threaded_bytes_;
  const size_t batch_chunks_;
  std::vector<Batch> batches_;
  std::mutex mu_;
  std::condition_variable filled_, freed_;
  size_t head_ = 0, count_ = 0;  // guarded by mu_
  bool stop_ = false;            // guarded by mu_
  bool started_ = false, threaded_ = false, finished_ = false;
  bool holding_ = false;  // the consumer owns batches_[head_]
  size_t served_ = 0;     // chunks of the held batch already returned
  std::thread worker_;
  std::optional<Error> final_error_;
  uint64_t chunk_offset_ = 0, position_ = 0, chunks_ = 0;
};

}  // namespace ttd::fmt
