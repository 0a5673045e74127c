// PowerPC opcode facts the TT6 family depends on: which record class an
// opcode gets (the spec's tt6_is* / tt6e_is* macros, as lookup tables so the
// reader's hot loop does two array loads per record), and how a load/store
// or cache instruction touches memory (kind, size, alignment, effective
// address).
#pragma once
#include <cstdint>

#include "formats/tt6/tt6_layout.h"

namespace ttd::fmt::tt6 {

constexpr uint32_t major_op(uint32_t op) { return op >> 26; }
// The spec's minorOp: the 10-bit extended opcode, bits 21-30.
constexpr uint32_t minor_op(uint32_t op) { return (op >> 1) & 0x3FFu; }
constexpr uint32_t field_rt(uint32_t op) { return (op >> 21) & 31u; }  // also rS, TO
constexpr uint32_t field_ra(uint32_t op) { return (op >> 16) & 31u; }
constexpr uint32_t field_rb(uint32_t op) { return (op >> 11) & 31u; }  // also NB

enum class RecordClass : uint8_t { Compute, FlowAltering, Memory, MemoryExtended, Escape };
constexpr uint32_t record_words(RecordClass c) {
  return c == RecordClass::Compute ? 1 : c == RecordClass::MemoryExtended ? 3 : 2;
}

// Classification tables for one variant (TT6 or TT6E).
class OpcodeClassifier {
 public:
  explicit OpcodeClassifier(bool tt6e);
  RecordClass classify(uint32_t op) const {
    uint32_t m = major_op(op);
    if (m == 31) return minor31_[minor_op(op)];
    if (m == 19) return minor19_[minor_op(op)];
    return major_[m];
  }

 private:
  RecordClass major_[64];
  RecordClass minor31_[1024];
  RecordClass minor19_[1024];
};
const OpcodeClassifier& classifier(Variant v);  // Full uses TT6E's (the widest)

enum class AccessKind : uint8_t {
  None,        // not a memory instruction
  Load,
  Store,       // the value stored is the register's (or unknown in TT6)
  StoreCond,   // stwcx./stdcx.: stores only if the reservation held
  CacheZero,   // dcbz: the block becomes zeros
  CacheUndef,  // dcba, dcbi: the block's contents become undefined
  CacheTouch,  // dcbf, dcbst, dcbt, dcbtst, icbi: no change to memory contents
  Stream,      // dst, dstst: a prefetch hint, no access
};

enum class EaForm : uint8_t { None, D, DS, X, RaOnly };

struct AccessShape {
  AccessKind kind = AccessKind::None;
  uint8_t size = 0;   // bytes; 0 = decided by the operands (see access_size)
  uint8_t align = 1;  // the access covers EA rounded down to this (AltiVec)
  EaForm form = EaForm::None;
  bool multiple = false;  // lmw/stmw: 4 * (32 - rT)
  bool string_immediate = false;  // lswi/stswi: NB (0 = 32)
  bool string_indexed = false;    // lswx/stswx: XER[25:31]
};
// Shapes by opcode, as tables (built once).
class AccessTable {
 public:
  AccessTable();
  const AccessShape& shape(uint32_t op) const {
    uint32_t m = major_op(op);
    return m == 31 ? minor31_[minor_op(op)] : major_[m];
  }

 private:
  AccessShape major_[64];
  AccessShape minor31_[1024];
};
const AccessTable& access_table();
inline const AccessShape& access_shape(uint32_t op) { return access_table().shape(op); }

// Bytes accessed; `xer` matters only to lswx/stswx.
inline uint32_t access_size(uint32_t op, const AccessShape& s, uint32_t xer) {
  if (s.size) return major_op(op) == 58 && (op & 3) == 2 ? 4 : s.size;  // lwa: 4 of ld's 8
  if (s.multiple) return 4 * (32 - field_rt(op));
  if (s.string_immediate) return field_rb(op) == 0 ? 32 : field_rb(op);
  if (s.string_indexed) return xer & 0x7Fu;
  return 0;
}
// Where the access starts once the shape's alignment is applied.
inline uint32_t access_address(uint32_t ea, const AccessShape& s) { return ea & ~uint32_t(s.align - 1); }
// The effective address from the registers before the instruction.
uint32_t effective_address(uint32_t op, const AccessShape& s, const uint32_t gpr[32]);

// Cache block size for dcbz/dcba: 32 bytes on the G3/G4, and what Darwin
// makes dcbz clear on the G5 for 32-bit code.
constexpr uint32_t kCacheBlock = 32;
// What dcbz writes: one cache block of zeroes.
inline constexpr uint8_t kZeroCacheBlock[kCacheBlock] = {};

inline bool is_trap_word(uint32_t op) { return major_op(op) == 3 || (major_op(op) == 31 && minor_op(op) == 4); }
inline bool is_syscall(uint32_t op) { return major_op(op) == 17; }

}  // namespace ttd::fmt::tt6
