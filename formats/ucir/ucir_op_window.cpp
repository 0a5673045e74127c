#include "formats/ucir/ucir_op_window.h"

#include <cstring>

namespace ttd::fmt::ucir {

OpWindow::OpWindow(ChunkSource& src) : src_(src) {
  buf_.grow(2 * ChunkSource::kMaxBlock, 0);
  data_ = buf_.data();
}

OpWindow::OpWindow(ChunkSource& src, const uint8_t* data, size_t size)
    : src_(src), data_(data), borrowed_(true), end_(size), eof_(true) {}

Status OpWindow::fill_slow(size_t n, bool& got) {
  got = false;
  if (borrowed_) {
    got = end_ - pos_ >= n;
    return {};
  }
  if (pos_ > 0) {
    std::memmove(buf_.data(), buf_.data() + pos_, end_ - pos_);
    base_ += pos_;
    end_ -= pos_;
    pos_ = 0;
    // Forget chunks that ended before the window start, keeping the one
    // that holds it.
    size_t keep = 0;
    while (keep + 1 < chunks_.size() && chunks_[keep + 1].stream <= base_) ++keep;
    chunks_.erase(chunks_.begin(), chunks_.begin() + keep);
  }
  while (end_ < n && !eof_) {
    if (buf_.size() - end_ < ChunkSource::kMaxBlock)
      buf_.grow(std::max(buf_.size() * 2, end_ + ChunkSource::kMaxBlock), end_);
    data_ = buf_.data();
    auto r = src_.next(buf_.data() + end_);
    if (!r) return r.error();
    if (*r == 0) {
      eof_ = true;
      break;
    }
    chunks_.push_back({base_ + end_, src_.chunk_offset()});
    end_ += *r;
  }
  got = end_ >= n;
  return {};
}

uint64_t OpWindow::chunk_file_offset(uint64_t off) const {
  uint64_t file = src_.chunk_offset();
  for (const ChunkStart& c : chunks_) {
    if (c.stream > off) break;
    file = c.file;
  }
  return file;
}

}  // namespace ttd::fmt::ucir
