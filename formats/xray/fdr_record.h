// Records of an FDR log as they lie in the file, one per call of the
// producer (formats/xray/fdr_producer.h). Visitors (the trace expander, the
// layout survey, the record printer) consume these. A record is a flat
// struct rather than a class hierarchy: the producer hands out millions of
// them per second and none is ever stored.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "state/error.h"

namespace ttd::fmt::xray {

enum class RecordKind : uint8_t {
  Function,       // 8 bytes: action, function id, u32 TSC delta
  NewBuffer,      // metadata kind 0: i32 thread id
  EndOfBuffer,    // kind 1 (v1 only)
  NewCpu,         // kind 2: u16 cpu, u64 absolute TSC
  TscWrap,        // kind 3: u64 absolute TSC
  WallTime,       // kind 4: u64 seconds, u32 microseconds
  CustomEvent,    // kind 5: v1-4 i32 size, u64 TSC (v4: + u16 cpu); v5 i32 size, i32 delta
  CallArgument,   // kind 6: u64 argument
  BufferExtents,  // kind 7 (v2+): u64 bytes in the buffer after this record
  TypedEvent,     // kind 8: i32 size, i32 delta, u16 event type
  Pid,            // kind 9 (v3+): i32 process id
  Skipped,        // not in the file: bytes the producer had to skip (see Recovery)
};
std::string_view record_kind_name(RecordKind k);

enum class FunctionAction : uint8_t { Enter = 0, Exit = 1, TailExit = 2, EnterArgs = 3 };

struct FdrRecord {
  RecordKind kind = RecordKind::Function;
  uint64_t offset = 0;  // file offset of the record's first byte
  uint32_t size = 0;    // bytes it occupies in the file (with any payload)

  // Function records.
  FunctionAction action = FunctionAction::Enter;
  uint32_t func_id = 0;  // 28 bits
  uint32_t delta = 0;    // TSC delta since the previous record that set or moved the base

  // Metadata fields; which ones are set depends on kind.
  uint64_t value = 0;                // NewCpu/TscWrap/CustomEvent(v1-4): TSC; CallArgument: arg;
                                     // BufferExtents: size; WallTime: seconds
  uint32_t micros = 0;               // WallTime
  int32_t id = 0;                    // NewBuffer: thread id; Pid: process id
  uint16_t cpu = 0;                  // NewCpu; CustomEvent v4
  int32_t event_delta = 0;           // CustomEvent v5, TypedEvent (signed, added to the TSC base)
  uint16_t event_type = 0;           // TypedEvent
  std::span<const uint8_t> payload;  // Custom/TypedEvent; valid until the next record

  // Skipped: `skipped` bytes at `offset` were not records; `lost` more bytes
  // were never written to the file at all (0 if unknown or none).
  uint64_t skipped = 0;
  uint64_t lost = 0;
  bool certain = true;  // false: a suspected loss the file cannot prove
};

// What the producer skipped or suspects is missing, with the file offsets.
// Reported through TraceInfo::properties and the reader's report. Kept
// small (a big log can have one per buffer); describe() makes the text.
struct Recovery {
  uint64_t buffer_offset = 0;  // offset of the buffer's BufferExtents record
  uint64_t buffer_end = 0;     // end of the buffer's data as BufferExtents says
  uint64_t offset = 0;         // first byte skipped (the buffer end for a suspected loss)
  uint64_t skipped = 0;        // bytes present in the file but not readable as records
  uint64_t lost = 0;           // bytes the writer never wrote (at least; estimated from the bug)
  uint64_t thread = 0;
  uint32_t typed_events = 0;   // typed events in the buffer (the bug's cause)
  uint8_t cut_byte = 0;        // first byte of the cut record (names its kind)
  bool certain = true;         // false: a suspected loss the file cannot prove
  bool runtime_writer = true;  // the header names a thread buffer size, as compiler-rt does
};

// One line naming the offsets, for `ttd info` and error reports.
std::string describe(const Recovery& r);
// "function record", "typed event record", ... from a record's first byte.
std::string record_name_from_first_byte(uint8_t first);

// A visitor over the record stream (the consumer side of the producer).
class RecordVisitor {
 public:
  virtual ~RecordVisitor() = default;
  virtual Status visit(const FdrRecord& r) = 0;
};

}  // namespace ttd::fmt::xray
