// A growable byte buffer that does not zero what it allocates: the
// readers' buffers are large (up to a few MiB) and always written before
// they are read, and zero-filling them would dominate reading a small
// trace.
#pragma once
#include <cstdint>
#include <cstring>
#include <memory>

namespace ttd::fmt {

class ByteBuffer {
 public:
  uint8_t* data() { return data_.get(); }
  const uint8_t* data() const { return data_.get(); }
  size_t size() const { return size_; }
  // Grows to at least n bytes, keeping the first `keep` bytes.
  void grow(size_t n, size_t keep) {
    if (n <= size_) return;
    std::unique_ptr<uint8_t[]> bigger(new uint8_t[n]);
    if (keep > 0) std::memcpy(bigger.get(), data_.get(), keep);
    data_ = std::move(bigger);
    size_ = n;
  }

 private:
  std::unique_ptr<uint8_t[]> data_;
  size_t size_ = 0;
};

}  // namespace ttd::fmt
