// On-disk layout of the UMTracer indexed trace (a directory of tables), as
// described in the UMTracer indexed trace format document with the
// corrections of its Pin-tool errata (both summarised in docs/formats/umtrace.md). Shared by the reader and the writer
// so both agree on every offset; nothing here allocates or reads files.
#pragma once
#include <cstdint>
#include <cstring>

#include "state/byte_order.h"

namespace ttd::fmt::umtrace {

// ---- file names inside the trace directory ----
inline constexpr const char* kExecVtable = "exec.vtable";
inline constexpr const char* kExecOffsets = "exec.offsets";
inline constexpr const char* kExecPrevNext = "exec.prev_next.column";
inline constexpr const char* kInsTable = "ins.itable";
inline constexpr const char* kSyscallVtable = "syscall.vtable";
inline constexpr const char* kSyscallOffsets = "syscall.offsets";
inline constexpr const char* kModuleTable = "module.itable";
inline constexpr const char* kThreadTable = "thread.itable";
inline constexpr const char* kContextMap = "context_map.itable";
inline constexpr const char* kAddressSpace = "address_space.itable";
inline constexpr const char* kTraceXml = "trace.xml";

// Fields are little-endian everywhere: state/byte_order.h loads them.

// ---- generic fixed-size table header (every *.itable but the context map) ----
struct ItableHeaderLayout {
  static constexpr uint32_t kHeaderVer = 0, kRecordVer = 4, kRowCount = 8, kRowSize = 16, kTableFP = 24;
  static constexpr uint32_t kSize = 32;
  // ins.itable and module.itable add ExtraFP and ExtraSize.
  static constexpr uint32_t kExtraFP = 32, kExtraSize = 40, kSizeWithExtra = 48;
};

// ---- execution table ----
struct ExecLayout {
  static constexpr uint32_t kVersion = 0, kRecordCount = 8, kHeaderSize = 16;
  // execRec common header
  static constexpr uint32_t kThreadID = 0, kType = 4, kFlags = 5, kRecordHeader = 6;
};

enum class ExecType : uint8_t {
  Instruction = 0,
  ThreadBegin = 1,
  ThreadEnd = 2,
  AppEnd = 3,
  SyscallEntry = 4,
  SyscallExit = 5,
  SkippedSyscallExit = 6,
  // 7 is not assigned by the specification.
  ContextApc = 8,
  ContextException = 9,
  ContextCallback = 10,
  ContextUnknown = 11,
};

enum ExecFlag : uint8_t {
  kFlag64Bit = 0x01,
  kFlagInstrumentationWasOff = 0x02,
  kFlagNotExecuted = 0x04,
  kFlagRepFirst = 0x08,
  kFlagUnreliableMask = 0xf0,
};

// rmContext and its contextMem entries; file pointers are relative to the
// start of the rmContext.
struct ContextLayout {
  static constexpr uint32_t kMemCount = 0, kRegsFP = 8, kMemRefs = 16;
  static constexpr uint32_t kMemRefSize = 24, kMemAddress = 0, kMemSize = 8, kMemDataFP = 16;
};

// ---- instruction table ----
struct InsRecLayout {
  static constexpr uint32_t kSize = 64;
  static constexpr uint32_t kID = 0, kType = 8, kCs64 = 9, kCodeSize = 10, kModuleID = 12, kAddress = 16,
                            kCodeBytes = 24, kMaxCode = 15, kDisasmFP = 40, kDecodedFP = 48;
};

struct DecodedLayout {
  static constexpr uint32_t kCategory = 0, kMnemonic = 2, kForm = 4, kFlags = 6, kExpCount = 7, kExpOper = 8,
                            kEffOperSize = 56, kEffAddrSize = 57, kLCSize = 58, kFirstOutSlot = 60,
                            kFirstAfterSlot = 61, kLCCount = 62, kMem0SegSlot = 63, kMem0BaseSlot = 64,
                            kMem0Scale = 65, kMem0IndexSlot = 66,
                            kMem1BaseSlot = 67,  // the spec's table says 65; ERRATA: really 67
                            kConstSlot = 72, kLCSlots = 88;
  static constexpr uint32_t kFixedSize = 88, kMaxExpOper = 4;
};

struct ExpOperLayout {
  static constexpr uint32_t kSize = 12;
  static constexpr uint32_t kRegName = 0, kOpSize = 2, kFlags = 4, kBeforeSlot = 5, kAfterSlot = 6,
                            kBeforeOffset = 7, kAfterOffset = 8;
};

struct LcSlotLayout {
  static constexpr uint32_t kSize = 12;
  static constexpr uint32_t kRegName = 0, kCommonName = 2, kValueSize = 4, kOffset = 6, kAddrWidth = 8;
  // Memory slots store a 64-bit address before the value.
  static constexpr uint32_t kAddressBytes = 8;
};

// LC slot indices with a special meaning.
inline constexpr uint8_t kSlotImm0 = 0xfd, kSlotImm1 = 0xfe, kSlotNA = 0xff;
// Operand names outside XED's register enum.
inline constexpr uint16_t kRegMem0 = 0xffff, kRegMem1 = 0xfffe, kRegAgen = 0xfffd;
// XED_REG_INVALID: "no register".
inline constexpr uint16_t kRegInvalid = 0;

// ---- system call table ----
struct SyscallLayout {
  static constexpr uint32_t kVersion = 0, kUnifiedIDsVer = 4, kRecordCount = 8, kHeaderSize = 16;
  static constexpr uint32_t kOffsetsEntry = 16;  // (offset, size) pairs in syscall.offsets
  static constexpr uint32_t kRawID = 0, kUniformID = 2, kConvention = 4, kCompleted = 5, kArgCount = 6,
                            kExtraCount = 7, kBeginEID = 8, kEndEID = 16, kBeforeSP = 24, kResult = 32,
                            kArgsFP = 40, kExtrasFP = 48, kFixedSize = 64;
};

// ---- module, thread, address space tables ----
struct ModuleLayout {
  static constexpr uint32_t kSize = 48;
  static constexpr uint32_t kLoadEID = 0, kUnloadEID = 8, kStartAddr = 16, kEndAddr = 24, kWinNameFP = 32,
                            kDeviceNameFP = 40;
};

struct ThreadLayout {
  static constexpr uint32_t kSize = 48;
  static constexpr uint32_t kID = 0, kWinTID = 4, kTIBAddr = 8, kFirstEID = 16, kLastEID = 24, kRecCount = 32;
};

struct AddressRangeLayout {
  static constexpr uint32_t kSize = 16, kFirst = 0, kLast = 8;
};

// ---- context map (no common header, see ERRATA) ----
struct ContextMapLayout {
  static constexpr uint32_t kDumpSize = 0, kElemCount = 2, kCommonName = 16, kStrName = 1040, kRegMap32 = 9232,
                            kRegMap64 = 13328, kSize = 17424;
  static constexpr uint32_t kEntries = 512, kNameBytes = 16;
  static constexpr uint32_t kRegInfoSize = 8, kInfoOffset = 0, kInfoSize = 2, kInfoEffLargest = 4;
  static constexpr uint16_t kNotInContext = 0xffff;
};

}  // namespace ttd::fmt::umtrace
