// Little helpers to write and read the index's compact encodings: LEB128
// varints, zigzag, fixed-width little-endian integers. The reader is
// bounds-checked: running past the end sets a flag instead of reading out
// of bounds, so a corrupt index can never crash a decoder.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ttd {

inline uint64_t zigzag(int64_t v) { return (uint64_t(v) << 1) ^ uint64_t(v >> 63); }
inline int64_t unzigzag(uint64_t v) { return int64_t(v >> 1) ^ -int64_t(v & 1); }
// Writes v as a LEB128 varint at p (room for 10 bytes); returns its length.
inline size_t put_var(uint64_t v, uint8_t* p) {
  uint8_t* start = p;
  while (v >= 0x80) {
    *p++ = uint8_t(v) | 0x80;
    v >>= 7;
  }
  *p++ = uint8_t(v);
  return size_t(p - start);
}

// An owned byte buffer, what ByteWriter hands over. Unlike a vector it is
// never zero-filled: index buffers are written right after they grow, and
// zero-filling them first cost a few per cent of a build.
struct ByteBlock {
  std::unique_ptr<uint8_t[]> bytes;
  size_t size = 0;
  size_t capacity = 0;  // bytes allocated (>= size), so a spent block can be reused
  static ByteBlock copy_of(const void* p, size_t n) {
    ByteBlock b{std::make_unique_for_overwrite<uint8_t[]>(n), n, n};
    if (n) std::memcpy(b.bytes.get(), p, n);
    return b;
  }
};

class ByteWriter {
 public:
  // Writes go through a raw pointer after one capacity check: the index
  // builder calls var() several times per step.
  void u8(uint8_t v) {
    room(1);
    storage_[n_++] = v;
  }
  void var(uint64_t v) {
    room(10);
    n_ += put_var(v, storage_.get() + n_);
  }
  void svar(int64_t v) { var(zigzag(v)); }
  // For writers that encode several values in a row: a pointer with room
  // for k bytes, and commit() with the pointer past the last byte written.
  uint8_t* reserve(size_t k) {
    room(k);
    return storage_.get() + n_;
  }
  void commit(const uint8_t* end) { n_ = size_t(end - storage_.get()); }
  void fixed64(uint64_t v) { bytes(&v, 8); }
  void fixed32(uint32_t v) { bytes(&v, 4); }
  void bytes(const void* p, size_t n) {
    if (n == 0) return;
    room(n);
    std::memcpy(storage_.get() + n_, p, n);
    n_ += n;
  }
  // bytes() for blocks that are usually short: up to 16 bytes are copied
  // without a library call. `p` must have 16 readable bytes: the data() of
  // a ByteWriter that was written to does (it holds at least 256).
  void short_bytes(const uint8_t* p, size_t n) {
    room(std::max<size_t>(n, 16));
    if (n <= 16)
      std::memcpy(storage_.get() + n_, p, 16);
    else
      std::memcpy(storage_.get() + n_, p, n);
    n_ += n;
  }
  void str(std::string_view s) {
    var(s.size());
    bytes(s.data(), s.size());
  }
  const uint8_t* data() const { return storage_.get(); }
  uint8_t* data() { return storage_.get(); }
  size_t size() const { return n_; }
  size_t capacity() const { return cap_; }
  void clear() { n_ = 0; }
  void truncate(size_t n) { n_ = std::min(n_, n); }
  // Inserts k bytes (unset) at pos, moving what follows.
  void open_gap(size_t pos, size_t k) {
    room(k);
    std::memmove(storage_.get() + pos + k, storage_.get() + pos, n_ - pos);
    n_ += k;
  }
  // Hands over the written bytes and starts empty with the same capacity,
  // in `spare`'s storage when that is large enough (a block whose bytes
  // were consumed: reusing it spares the allocator a cross-thread free).
  // A large buffer holding little (one big keyframe grew it; the chunks
  // after it are small) keeps its storage and hands over a copy, in
  // `spare` if that fits: replacing megabytes for every chunk cost an mmap,
  // page faults and an munmap each when no spare was at hand (a two-thread
  // build, whose writer still holds the spent blocks).
  ByteBlock take(ByteBlock spare = {}) {
    if (cap_ >= kCopyOutCapacity && n_ <= cap_ / 4 && !(spare.bytes && spare.capacity >= cap_)) {
      ByteBlock out = spare.bytes && spare.capacity >= n_
                          ? std::move(spare)
                          : ByteBlock{std::make_unique_for_overwrite<uint8_t[]>(std::max<size_t>(n_, 1)), 0,
                                      std::max<size_t>(n_, 1)};
      if (n_) std::memcpy(out.bytes.get(), storage_.get(), n_);
      out.size = n_;
      n_ = 0;
      return out;
    }
    ByteBlock out{std::move(storage_), n_, cap_};
    if (spare.bytes && spare.capacity >= cap_) {
      storage_ = std::move(spare.bytes);
      cap_ = spare.capacity;
    } else {
      storage_ = std::make_unique_for_overwrite<uint8_t[]>(cap_);
    }
    n_ = 0;
    return out;
  }
  static constexpr size_t kCopyOutCapacity = size_t(1) << 20;  // ttd's mmap threshold (tools/ttd/main.cpp)

 private:
  void room(size_t k) {
    if (cap_ - n_ < k) [[unlikely]]
      grow(k);
  }
  // Out of line: keeps the writers that inline room() small.
  [[gnu::noinline]] void grow(size_t k) {
    const size_t cap = std::max<size_t>({cap_ * 2, n_ + k, 256});
    auto grown = std::make_unique_for_overwrite<uint8_t[]>(cap);
    if (n_) std::memcpy(grown.get(), storage_.get(), n_);
    storage_ = std::move(grown);
    cap_ = cap;
  }
  std::unique_ptr<uint8_t[]> storage_;  // cap_ bytes, the first n_ written
  size_t cap_ = 0, n_ = 0;
};

class ByteReader {
 public:
  ByteReader() = default;
  ByteReader(const uint8_t* p, size_t n) : p_(p), end_(p + n) {}
  bool ok() const { return !bad_; }
  bool at_end() const { return p_ >= end_; }
  size_t remaining() const { return size_t(end_ - p_); }
  const uint8_t* pos() const { return p_; }

  uint8_t u8() {
    if (p_ >= end_) return fail();
    return *p_++;
  }
  uint64_t var() {
    if (p_ < end_ && *p_ < 0x80) return *p_++;  // most varints are one byte
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (p_ >= end_) return fail();
      uint8_t b = *p_++;
      v |= uint64_t(b & 0x7f) << shift;
      if (!(b & 0x80)) return v;
    }
    return fail();
  }
  int64_t svar() { return unzigzag(var()); }
  uint64_t fixed64() {
    uint64_t v = 0;
    bytes(&v, 8);
    return v;
  }
  uint32_t fixed32() {
    uint32_t v = 0;
    bytes(&v, 4);
    return v;
  }
  bool bytes(void* out, size_t n) {
    if (remaining() < n) {
      fail();
      return false;
    }
    std::memcpy(out, p_, n);
    p_ += n;
    return true;
  }
  // Returns a pointer to n bytes inside the buffer, or nullptr.
  const uint8_t* take(size_t n) {
    if (remaining() < n) {
      fail();
      return nullptr;
    }
    const uint8_t* r = p_;
    p_ += n;
    return r;
  }
  std::string str() {
    uint64_t n = var();
    const uint8_t* p = take(n);
    return p ? std::string(reinterpret_cast<const char*>(p), n) : std::string();
  }

 private:
  uint8_t fail() {
    bad_ = true;
    p_ = end_;
    return 0;
  }
  const uint8_t* p_ = nullptr;
  const uint8_t* end_ = nullptr;
  bool bad_ = false;
};

}  // namespace ttd
