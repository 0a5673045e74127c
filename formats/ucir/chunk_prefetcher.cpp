#include "formats/ucir/chunk_prefetcher.h"

#include <cstring>
#include <system_error>

namespace ttd::fmt {

ChunkPrefetcher::ChunkPrefetcher(ChunkSource& src, size_t depth, uint64_t min_threaded_bytes)
    : src_(src),
      path_(src.path()),
      file_size_(src.file_size()),
      min_threaded_bytes_(min_threaded_bytes),
      slots_(std::max<size_t>(depth, 2)) {}

ChunkPrefetcher::~ChunkPrefetcher() {
  if (!worker_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  freed_.notify_all();
  worker_.join();
}

void ChunkPrefetcher::work() {
  size_t at = 0;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      freed_.wait(lock, [&] { return stop_ || count_ < slots_.size(); });
      if (stop_) return;
      at = (head_ + count_) % slots_.size();
    }
    // The slot is ours until published: decode without the lock.
    Slot& s = slots_[at];
    auto r = src_.next(s.data.data());
    s.error.reset();
    if (r) {
      s.size = *r;
    } else {
      s.size = 0;
      s.error = r.error();
    }
    s.chunk_offset = src_.chunk_offset();
    s.position = src_.position();
    const bool last = s.size == 0;
    {
      std::lock_guard<std::mutex> lock(mu_);
      ++count_;
    }
    filled_.notify_one();
    if (last) return;
  }
}

Result<size_t> ChunkPrefetcher::next(uint8_t* dst) {
  if (final_error_) return *final_error_;
  if (finished_) return size_t(0);
  if (!started_) {
    started_ = true;
    if (file_size_ >= min_threaded_bytes_) {
      for (Slot& s : slots_) s.data.grow(kMaxBlock, 0);
      try {
        worker_ = std::thread(&ChunkPrefetcher::work, this);
        threaded_ = true;
      } catch (const std::system_error&) {
        threaded_ = false;  // no thread available: decode in this one
      }
    }
  }
  if (!threaded_) {
    auto r = src_.next(dst);
    if (!r) return final_error_ = r.error(), *final_error_;
    chunk_offset_ = src_.chunk_offset();
    position_ = src_.position();
    if (*r == 0) finished_ = true;
    else ++chunks_;
    return r;
  }
  size_t at;
  {
    std::unique_lock<std::mutex> lock(mu_);
    filled_.wait(lock, [&] { return count_ > 0; });
    at = head_;
  }
  Slot& s = slots_[at];
  chunk_offset_ = s.chunk_offset;
  position_ = s.position;
  const size_t n = s.size;
  if (s.error) final_error_ = std::move(s.error);
  if (n > 0) std::memcpy(dst, s.data.data(), n);
  {
    std::lock_guard<std::mutex> lock(mu_);
    head_ = (head_ + 1) % slots_.size();
    --count_;
  }
  freed_.notify_one();
  if (final_error_) return *final_error_;
  if (n == 0) {
    finished_ = true;
    return size_t(0);
  }
  ++chunks_;
  return n;
}

}  // namespace ttd::fmt
