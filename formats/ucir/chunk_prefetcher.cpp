#include "formats/ucir/chunk_prefetcher.h"

#include <cstring>
#include <system_error>

#include "state/host_cpus.h"

namespace ttd::fmt {

ChunkPrefetcher::ChunkPrefetcher(ChunkSource& src, size_t depth, uint64_t min_threaded_bytes, size_t batch_chunks)
    : src_(src),
      path_(src.path()),
      file_size_(src.file_size()),
      min_threaded_bytes_(min_threaded_bytes),
      batch_chunks_(std::max<size_t>(batch_chunks, 1)),
      batches_(std::max<size_t>(depth, 2)) {}

ChunkPrefetcher::~ChunkPrefetcher() {
  if (!worker_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  freed_.notify_all();
  worker_.join();
}

// Decodes up to batch_chunks_ chunks into b, stopping after the end of the
// stream or an error (recorded as a final size-0 chunk).
void ChunkPrefetcher::fill(Batch& b) {
  b.chunks.clear();
  b.error.reset();
  size_t used = 0;
  while (b.chunks.size() < batch_chunks_) {
    auto r = src_.next(b.data.data() + used);
    Chunk c;
    c.start = used;
    c.size = r ? *r : 0;
    c.chunk_offset = src_.chunk_offset();
    c.position = src_.position();
    b.chunks.push_back(c);
    if (!r) b.error = r.error();
    if (c.size == 0) return;
    used += c.size;
  }
}

void ChunkPrefetcher::work() {
  for (;;) {
    size_t at = 0;
    {
      std::unique_lock<std::mutex> lock(mu_);
      freed_.wait(lock, [&] { return stop_ || count_ < batches_.size(); });
      if (stop_) return;
      at = (head_ + count_) % batches_.size();
    }
    // The batch is ours until published: decode without the lock.
    Batch& b = batches_[at];
    fill(b);
    const bool last = b.chunks.back().size == 0;
    {
      std::lock_guard<std::mutex> lock(mu_);
      ++count_;
    }
    filled_.notify_one();
    if (last) return;
  }
}

Result<size_t> ChunkPrefetcher::next_unthreaded(uint8_t* dst) {
  auto r = src_.next(dst);
  if (!r) return final_error_ = r.error(), *final_error_;
  chunk_offset_ = src_.chunk_offset();
  position_ = src_.position();
  if (*r == 0) finished_ = true;
  else ++chunks_;
  return r;
}

Result<size_t> ChunkPrefetcher::next(uint8_t* dst) {
  if (final_error_) return *final_error_;
  if (finished_) return size_t(0);
  if (!started_) {
    started_ = true;
    if (file_size_ >= min_threaded_bytes_ && usable_cpus() > 1) {
      for (Batch& b : batches_) b.data.grow(batch_chunks_ * kMaxBlock, 0);
      try {
        worker_ = std::thread(&ChunkPrefetcher::work, this);
        threaded_ = true;
      } catch (const std::system_error&) {
        threaded_ = false;  // no thread available: decode in this one
      }
    }
  }
  if (!threaded_) return next_unthreaded(dst);

  if (holding_ && served_ == batches_[head_].chunks.size()) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      head_ = (head_ + 1) % batches_.size();
      --count_;
    }
    freed_.notify_one();
    holding_ = false;
  }
  if (!holding_) {
    std::unique_lock<std::mutex> lock(mu_);
    filled_.wait(lock, [&] { return count_ > 0; });
    holding_ = true;
    served_ = 0;
  }
  Batch& b = batches_[head_];
  const Chunk& c = b.chunks[served_++];
  chunk_offset_ = c.chunk_offset;
  position_ = c.position;
  if (c.size == 0) {
    // End of stream or error; the worker has stopped.
    if (b.error) return final_error_ = std::move(b.error), *final_error_;
    finished_ = true;
    return size_t(0);
  }
  std::memcpy(dst, b.data.data() + c.start, c.size);
  ++chunks_;
  return c.size;
}

}  // namespace ttd::fmt
