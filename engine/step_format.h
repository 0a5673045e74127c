// The byte layout of the index's step stream (engine/step_codec.h gives
// the overview): attribute types, the step header's bits and the tags
// that start effects. Encoder and decoder both follow it; changing any
// value here changes the index format.
#pragma once
#include <cstdint>

namespace ttd {

// An attribute is var(key << 3 | type) then its value. Unsigned integers
// are usually close to the same key's previous value in the chunk (XRay's
// tsc, function ids, cpu), so they are stored as "same" or as a signed
// difference when that is shorter. Keys below kMaxDeltaAttrKeys only: a
// decoder keeps that much history per chunk at most.
enum : uint8_t { kAttrU64 = 0, kAttrI64 = 1, kAttrStr = 2, kAttrList = 3, kAttrU64Same = 4, kAttrU64Delta = 5 };
constexpr uint32_t kAttrTypeBits = 3;
constexpr uint64_t kAttrTypeMask = (1u << kAttrTypeBits) - 1;
constexpr uint32_t kMaxDeltaAttrKeys = 256;

// Step header byte: what the step shares with the one before it or with
// the prediction (StepPcMemo), and which blocks follow. A pc that is not
// as predicted is stored as its zigzag distance from where the previous
// step ended.
enum : uint8_t {
  kStepSameThread = 1,
  kStepFallThroughPc = 2,  // the pc is as predicted
  kStepSameSize = 4,       // the size is as predicted
  kStepInstruction = 8,
  kStepHasAttrs = 16,
  kStepHasEffects = 32,
};
// Bits 6-7 of the header: 1 to 3 register effects in the short form
// (kRegTag) and nothing else, stored without the effects length byte
// (the most common step: an x86 instruction writing a register and the
// flags). Then kStepHasEffects is clear.
constexpr uint32_t kStepShortRegsShift = 6;
constexpr uint32_t kStepMaxShortRegs = 3;

// An effect starts with a tag byte: below kAccessTag one of these, from
// kAccessTag a memory access, from kRegTag a register.
enum class EffectTag : uint8_t {
  Reg = 1,  // any register: var number, then a delta (<= 8 bytes) or the value
  RegUnknown = 2,
  // 3, 4 and 5 were memory accesses before index version 6.
  MemMap = 6,
  MemUnmap = 7,
  MemProt = 8,
  ThreadBegin = 9,
  ThreadEnd = 10,
  CtxThread = 11,  // following register effects apply to another thread
  CtxPid = 12,     // following memory effects apply to another process
};

// kRegTag + n (n < 64): register n of at most 8 bytes, then its delta
// from the register's last value; kRegTag + kRegFromPrior + n: its delta
// from the value the register held before that (a register alternating
// between a pointer and a counter costs a byte, not seven). Registers
// 64 and up take EffectTag::Reg.
constexpr uint8_t kRegTag = 0x80;
constexpr uint8_t kRegFromPrior = 0x40;
constexpr uint16_t kShortRegs = 64;
// kAccessTag + kind * 16 + size code * 4 + slot: a memory access of that
// kind, then the zigzag distance of its address from the slot's recent
// access end (AccessEnds), then its size if the code is 0, then its data.
constexpr uint8_t kAccessTag = 0x20;
enum StepAccessKind : uint8_t {
  kAccWrite = 0,     // the bytes follow
  kAccWriteVar = 1,  // 2 to 8 bytes, their little-endian value follows as a varint
  kAccRead = 2,      // value unknown
  kAccReadData = 3,  // the bytes read follow
  kAccUnknown = 4,   // the bytes became unknown
  kAccKinds = 5,
};
constexpr uint64_t kAccessCodeSize[4] = {0, 1, 4, 8};  // size code -> size (0: a varint follows)
inline uint8_t access_size_code(uint64_t size) { return size == 8 ? 3 : size == 4 ? 2 : size == 1 ? 1 : 0; }

}  // namespace ttd
