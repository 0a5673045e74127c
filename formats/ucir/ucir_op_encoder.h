// Appends UCIR ops, little-endian and packed exactly as usercorn's ops.go
// does, to a byte buffer. Shared by the writer (OpBuffer: it encodes an op
// or more per recorded instruction) and by tests that build hostile or
// unusual streams by hand (std::vector).
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "formats/ucir/ucir_ops.h"
#include "state/byte_order.h"

namespace ttd::fmt::ucir {

// A byte buffer that grows without zero-filling and hands out room for a
// whole op at once, so a fixed-size op is a few stores, not library calls.
class OpBuffer {
 public:
  uint8_t* extend(size_t n) {
    if (cap_ - size_ < n) reserve_more(n);
    uint8_t* p = data_.get() + size_;
    size_ += n;
    return p;
  }
  void clear() { size_ = 0; }
  size_t size() const { return size_; }
  uint8_t* data() { return data_.get(); }
  std::span<const uint8_t> bytes() const { return {data_.get(), size_}; }

 private:
  void reserve_more(size_t n) {
    const size_t cap = std::max(size_ + n, cap_ ? 2 * cap_ : size_t(4096));
    std::unique_ptr<uint8_t[]> bigger(new uint8_t[cap]);
    if (size_) std::memcpy(bigger.get(), data_.get(), size_);
    data_ = std::move(bigger);
    cap_ = cap;
  }
  std::unique_ptr<uint8_t[]> data_;
  size_t size_ = 0, cap_ = 0;
};

inline uint8_t* extend(OpBuffer& b, size_t n) { return b.extend(n); }
inline uint8_t* extend(std::vector<uint8_t>& v, size_t n) {
  const size_t at = v.size();
  v.resize(at + n);
  return v.data() + at;
}

template <class Out>
class BasicOpEncoder {
 public:
  explicit BasicOpEncoder(Out& out) : out_(out) {}

  void u8(uint8_t v) { *extend(out_, 1) = v; }
  void u16(uint16_t v) { store_le16(extend(out_, 2), v); }
  void u32(uint32_t v) { store_le32(extend(out_, 4), v); }
  void u64(uint64_t v) { store_le64(extend(out_, 8), v); }
  void bytes(std::span<const uint8_t> b) {
    if (!b.empty()) std::memcpy(extend(out_, b.size()), b.data(), b.size());
  }
  void str(std::string_view s) {
    if (!s.empty()) std::memcpy(extend(out_, s.size()), s.data(), s.size());
  }

  void nop() { u8(OP_NOP); }
  void exit() { u8(OP_EXIT); }
  void frame_header(uint8_t op, uint64_t pid, uint32_t count) { addr_op(op, pid, count); }
  void jmp(uint64_t addr, uint32_t size) { addr_op(OP_JMP, addr, size); }
  void step(uint8_t size) {
    uint8_t* p = extend(out_, 2);
    p[0] = OP_STEP;
    p[1] = size;
  }
  void reg(uint16_t num, uint64_t value) {
    uint8_t* p = extend(out_, 11);
    p[0] = OP_REG;
    store_le16(p + 1, num);
    store_le64(p + 3, value);
  }
  void spreg(uint16_t num, std::span<const uint8_t> value) {
    u8(OP_SPREG), u16(num), u16(uint16_t(value.size())), bytes(value);
  }
  void mem_read(uint64_t addr, uint32_t size) { addr_op(OP_MEM_READ, addr, size); }
  void mem_write(uint64_t addr, std::span<const uint8_t> data) {
    addr_op(OP_MEM_WRITE, addr, uint32_t(data.size()));
    bytes(data);
  }
  void mem_map(uint64_t addr, uint64_t size, uint8_t prot, uint64_t off, uint64_t len, std::string_view desc,
               std::string_view file) {
    u8(OP_MEM_MAP), u64(addr), u64(size), u8(prot), u64(off), u64(len);
    u16(uint16_t(desc.size())), u16(uint16_t(file.size())), str(desc), str(file);
  }
  void mem_unmap(uint64_t addr, uint64_t size) { u8(OP_MEM_UNMAP), u64(addr), u64(size); }
  void mem_prot(uint64_t addr, uint64_t size, uint8_t prot) { u8(OP_MEM_PROT), u64(addr), u64(size), u8(prot); }
  // SYSCALL header and arguments; `count` nested ops must follow.
  void syscall_header(uint32_t num, uint64_t ret, std::span<const uint64_t> args, uint16_t count) {
    u8(OP_SYSCALL), u32(num), u64(ret), u8(uint8_t(args.size())), u16(count);
    for (uint64_t a : args) u64(a);
  }

 private:
  // op u8, u64, u32: frame headers, jmp, memory reads, memory-write headers.
  void addr_op(uint8_t op, uint64_t a, uint32_t n) {
    uint8_t* p = extend(out_, 13);
    p[0] = op;
    store_le64(p + 1, a);
    store_le32(p + 9, n);
  }
  Out& out_;
};

using OpEncoder = BasicOpEncoder<std::vector<uint8_t>>;

}  // namespace ttd::fmt::ucir
