// UCIR op codes and their fixed-size parts, as usercorn's
// go/models/trace/ops.go packs them (little-endian, no padding; sizes of
// MAP/UNMAP/PROT are u64 and SYSCALL's number is u32, unlike the document).
#pragma once
#include <cstdint>
#include <string_view>

namespace ttd::fmt::ucir {

enum Op : uint8_t {
  OP_NOP = 0,
  OP_FRAME = 1,
  OP_KEYFRAME = 2,
  OP_JMP = 3,
  OP_STEP = 4,
  OP_REG = 5,
  OP_SPREG = 6,
  OP_MEM_READ = 7,
  OP_MEM_WRITE = 8,
  OP_MEM_MAP = 9,
  OP_MEM_UNMAP = 10,
  OP_MEM_PROT = 11,
  OP_SYSCALL = 12,
  OP_EXIT = 13,
};
constexpr uint8_t kOpCount = 14;

// Bytes after the op byte that every instance of the op has (variable
// parts, if any, follow and are sized by fields inside this part).
constexpr uint8_t kFixedBody[kOpCount] = {
    0,                           // NOP
    8 + 4,                       // FRAME: pid u64, op_count u32
    8 + 4,                       // KEYFRAME
    8 + 4,                       // JMP: addr u64, block size u32
    1,                           // STEP: size u8
    2 + 8,                       // REG: num u16, value u64
    2 + 2,                       // SPREG: num u16, size u16, then bytes
    8 + 4,                       // MEM_READ: addr u64, size u32 (no data)
    8 + 4,                       // MEM_WRITE: addr u64, size u32, then bytes
    8 + 8 + 1 + 8 + 8 + 2 + 2,   // MEM_MAP: addr, size, prot, off, len, dlen, flen, then desc, file
    8 + 8,                       // MEM_UNMAP: addr u64, size u64
    8 + 8 + 1,                   // MEM_PROT: addr u64, size u64, prot u8
    4 + 8 + 1 + 2,               // SYSCALL: num u32, ret u64, argc u8, op_count u16, then args, ops
    0,                           // EXIT
};

constexpr std::string_view op_name(uint8_t op) {
  constexpr std::string_view names[kOpCount] = {
      "OP_NOP",      "OP_FRAME",     "OP_KEYFRAME",  "OP_JMP",       "OP_STEP",
      "OP_REG",      "OP_SPREG",     "OP_MEM_READ",  "OP_MEM_WRITE", "OP_MEM_MAP",
      "OP_MEM_UNMAP", "OP_MEM_PROT", "OP_SYSCALL",   "OP_EXIT"};
  return op < kOpCount ? names[op] : std::string_view("unknown op");
}

// The largest special register value the reader accepts (a 512-bit ZMM
// register is 64 bytes); anything bigger is corrupt input.
constexpr uint16_t kMaxSpRegBytes = 64;

// ttd's thread extension: a frame's pid field is its thread - 1 (usercorn
// writes 0: everything is thread 1). A trace may name at most this many
// threads; more is corrupt input (each costs the consumer a register file).
constexpr uint64_t kMaxUcirThreads = 4096;

}  // namespace ttd::fmt::ucir
