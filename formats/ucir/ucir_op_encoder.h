// Appends UCIR ops, little-endian and packed exactly as usercorn's ops.go
// does, to a byte buffer. Shared by the writer and by tests that build
// hostile or unusual streams by hand.
#pragma once
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "formats/ucir/ucir_ops.h"

namespace ttd::fmt::ucir {

class OpEncoder {
 public:
  explicit OpEncoder(std::vector<uint8_t>& out) : out_(out) {}

  void u8(uint8_t v) { out_.push_back(v); }
  void u16(uint16_t v) { put_le(v, 2); }
  void u32(uint32_t v) { put_le(v, 4); }
  void u64(uint64_t v) { put_le(v, 8); }
  void bytes(std::span<const uint8_t> b) { out_.insert(out_.end(), b.begin(), b.end()); }
  void str(std::string_view s) { out_.insert(out_.end(), s.begin(), s.end()); }

  void nop() { u8(OP_NOP); }
  void exit() { u8(OP_EXIT); }
  void frame_header(uint8_t op, uint64_t pid, uint32_t count) { u8(op), u64(pid), u32(count); }
  void jmp(uint64_t addr, uint32_t size) { u8(OP_JMP), u64(addr), u32(size); }
  void step(uint8_t size) { u8(OP_STEP), u8(size); }
  void reg(uint16_t num, uint64_t value) { u8(OP_REG), u16(num), u64(value); }
  void spreg(uint16_t num, std::span<const uint8_t> value) {
    u8(OP_SPREG), u16(num), u16(uint16_t(value.size())), bytes(value);
  }
  void mem_read(uint64_t addr, uint32_t size) { u8(OP_MEM_READ), u64(addr), u32(size); }
  void mem_write(uint64_t addr, std::span<const uint8_t> data) {
    u8(OP_MEM_WRITE), u64(addr), u32(uint32_t(data.size())), bytes(data);
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
  void put_le(uint64_t v, int n) {
    // One append per field, not one per byte (the recorder writes an op
    // or more per instruction).
    const size_t at = out_.size();
    out_.resize(at + size_t(n));
    uint8_t* p = out_.data() + at;
    for (int i = 0; i < n; ++i) p[i] = uint8_t(v >> (8 * i));
  }
  std::vector<uint8_t>& out_;
};

}  // namespace ttd::fmt::ucir
