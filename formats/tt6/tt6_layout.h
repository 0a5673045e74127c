// On-disk layout of Amber's TT6, TT6E and FULL PowerPC traces
// (Amber's TT6 trace format document and its PowerPC errata, summarised in
// docs/formats/tt6.md). Every field is
// a big-endian 32-bit longword. Shared by the readers and the writers so the
// two cannot drift apart.
#pragma once
#include <cstddef>
#include <cstdint>

#include "state/byte_order.h"  // load_be32 / store_be32: every field is big-endian

namespace ttd::fmt::tt6 {

// The three variants. TT6 and TT6E differ in which opcodes carry an
// address (TT6E adds the DCBx cache instructions) and in TT6E's synthetic
// trap-return records; FULL is a different layout altogether.
enum class Variant : uint8_t { Tt6, Tt6e, Full };
const char* variant_format_name(Variant v);  // "tt6", "tt6e", "tt6-full"

constexpr uint32_t kFullCookie = 0xA1118E17u;

// Escape records: a longword whose primary opcode (bits 0-5, IBM numbering)
// is 0 - an illegal opcode - then `count` longwords. Bits 6-15 hold the code.
constexpr uint32_t escape_code(uint32_t word) { return (word >> 16) & 0x3FFu; }
constexpr uint32_t escape_count(uint32_t word) { return word & 0xFFFFu; }
constexpr uint32_t make_escape(uint32_t code, uint32_t count) { return ((code & 0x3FFu) << 16) | (count & 0xFFFFu); }

enum EscapeCode : uint32_t {
  kEscapeSegmentRegister = 0x00,
  kEscapeDataAddress = 0x01,        // optional data address for the next instruction
  kEscapeConditionRegister = 0x02,
  kEscapeRealBranchTarget = 0x03,   // real address of the next instruction's branch target
  kEscapeRealDataAddress = 0x04,
  kEscapeRealNextAddress = 0x05,
  kEscapeSyncFirst = 0x20,          // 0x20-0x3F: thread synchronisation
  kEscapeSyncLast = 0x3F,
};

enum SyncType : uint32_t {
  kSyncSignal = 0x20,
  kSyncBroadcastSignal = 0x21,
  kSyncWait = 0x30,
  kSyncTryWait = 0x31,
};

// TT6E's synthetic "b 0x00000700" (the program-interrupt vector) and "rfi"
// that stand for a trap taken at a TWI and returned from.
constexpr uint32_t kTrapVector = 0x700;
constexpr uint32_t kSyntheticTrapBranch = 0x48000702u;  // ba 0x700
constexpr uint32_t kRfi = 0x4C000064u;

// Darwin's user state as FULL records carry it (xnu osfmk/mach/ppc/_structs.h,
// 32-bit: unsigned long is 4 bytes, the vector state is #pragma pack(4)).
// Values in host order; the codec converts.
struct PpcUserState {
  // ppc_thread_state: srr0, srr1, r0-r31, cr, xer, lr, ctr, mq, vrsave.
  uint32_t srr0 = 0, srr1 = 0;
  uint32_t gpr[32] = {};
  uint32_t cr = 0, xer = 0, lr = 0, ctr = 0, mq = 0, vrsave = 0;
  // ppc_float_state: fpregs[32] (IEEE doubles, kept as bits), fpscr_pad, fpscr.
  uint64_t fpr[32] = {};
  uint32_t fpscr = 0;
  // ppc_vector_state: save_vr[32][4], save_vscr[4] (VSCR in word 3, where
  // mfvscr puts it), save_pad5[4], save_vrvalid (bit 0x80000000 >> n: vrN
  // holds a saved value), save_pad6[7].
  uint32_t vr[32][4] = {};
  uint32_t vscr = 0;
  uint32_t vrvalid = 0;

  bool vr_valid(unsigned n) const { return (vrvalid & (0x80000000u >> n)) != 0; }
};

// Byte offsets inside one FULL record (opcode + the three structures).
namespace full {
constexpr size_t kOpcode = 0;
constexpr size_t kThreadState = 4;
constexpr size_t kThreadStateBytes = 40 * 4;
constexpr size_t kSrr0 = kThreadState + 0;
constexpr size_t kSrr1 = kThreadState + 4;
constexpr size_t kGpr0 = kThreadState + 8;
constexpr size_t kCr = kGpr0 + 32 * 4;
constexpr size_t kXer = kCr + 4;
constexpr size_t kLr = kXer + 4;
constexpr size_t kCtr = kLr + 4;
constexpr size_t kMq = kCtr + 4;
constexpr size_t kVrsave = kMq + 4;
constexpr size_t kFloatState = kThreadState + kThreadStateBytes;
constexpr size_t kFloatStateBytes = 32 * 8 + 4 + 4;
constexpr size_t kFpr0 = kFloatState;
constexpr size_t kFpscrPad = kFpr0 + 32 * 8;
constexpr size_t kFpscr = kFpscrPad + 4;
constexpr size_t kVectorState = kFloatState + kFloatStateBytes;
constexpr size_t kVectorStateBytes = (32 * 4 + 4 + 4 + 1 + 7) * 4;
constexpr size_t kVr0 = kVectorState;
constexpr size_t kVscrWords = kVr0 + 32 * 16;
constexpr size_t kVscr = kVscrWords + 12;  // the low-order word of save_vscr
constexpr size_t kVrvalid = kVscrWords + 16 + 16;
constexpr size_t kRecordBytes = kVectorState + kVectorStateBytes;
static_assert(kThreadStateBytes == 160 && kFloatStateBytes == 264 && kVectorStateBytes == 576);
static_assert(kRecordBytes == 1004);
static_assert(kVrsave + 4 == kFloatState && kFpscr + 4 == kVectorState);
}  // namespace full

}  // namespace ttd::fmt::tt6
