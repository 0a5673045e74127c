#include "formats/xray/fdr_layout.h"

#include "state/byte_order.h"

namespace ttd::fmt::xray {

std::string_view record_kind_name(RecordKind k) {
  switch (k) {
    case RecordKind::Function:
      return "Function";
    case RecordKind::NewBuffer:
      return "NewBuffer";
    case RecordKind::EndOfBuffer:
      return "EndOfBuffer";
    case RecordKind::NewCpu:
      return "NewCPUId";
    case RecordKind::TscWrap:
      return "TSCWrap";
    case RecordKind::WallTime:
      return "WallTimeMarker";
    case RecordKind::CustomEvent:
      return "CustomEventMarker";
    case RecordKind::CallArgument:
      return "CallArgument";
    case RecordKind::BufferExtents:
      return "BufferExtents";
    case RecordKind::TypedEvent:
      return "TypedEventMarker";
    case RecordKind::Pid:
      return "Pid";
    case RecordKind::Skipped:
      return "Skipped";
  }
  return "?";
}

Status decode_function(const uint8_t* p, uint64_t offset, FdrRecord& r, const std::string& where) {
  // Little-endian bitfield: bit 0 = 0 (function record), bits 1..3 the
  // action, bits 4..31 the function id; then a u32 TSC delta.
  uint32_t word = load_le32(p);
  uint32_t action = (word >> 1) & 7u;
  if (action > 3)
    return make_error_at(where, offset,
                         "unknown function record action " + std::to_string(action) +
                             " (0 enter, 1 exit, 2 tail exit, 3 enter with args)");
  r.kind = RecordKind::Function;
  r.offset = offset;
  r.size = kFunctionRecordSize;
  r.action = FunctionAction(action);
  r.func_id = word >> 4;
  r.delta = load_le32(p + 4);
  return {};
}

namespace {

Status event_size(const uint8_t* p, uint64_t offset, const char* what, FdrRecord& r, uint32_t& payload_size,
                  const std::string& where) {
  int32_t size = load_le_i32(p + 1);
  if (size <= 0) return make_error_at(where, offset, std::string("invalid ") + what + " size " + std::to_string(size));
  payload_size = uint32_t(size);
  r.size = kMetadataRecordSize + payload_size;
  return {};
}

}  // namespace

Status decode_metadata(const uint8_t* p, uint64_t offset, uint16_t version, FdrRecord& r, uint32_t& payload_size,
                       const std::string& where) {
  uint8_t kind = metadata_kind(p[0]);
  r.offset = offset;
  r.size = kMetadataRecordSize;
  r.payload = {};
  payload_size = 0;
  const uint8_t* d = p + 1;  // the 15 data bytes
  switch (kind) {
    case kNewBuffer:
      r.kind = RecordKind::NewBuffer;
      r.id = load_le_i32(d);
      return {};
    case kEndOfBuffer:
      if (version >= 2)
        return make_error_at(
            where, offset,
            "EndOfBuffer record in a version " + std::to_string(version) + " log (only version 1 has them)");
      r.kind = RecordKind::EndOfBuffer;
      return {};
    case kNewCpu:
      r.kind = RecordKind::NewCpu;
      r.cpu = load_le16(d);
      r.value = load_le64(d + 2);
      return {};
    case kTscWrap:
      r.kind = RecordKind::TscWrap;
      r.value = load_le64(d);
      return {};
    case kWallTime:
      r.kind = RecordKind::WallTime;
      r.value = load_le64(d);
      r.micros = load_le32(d + 8);
      return {};
    case kCustomEvent:
      r.kind = RecordKind::CustomEvent;
      if (auto s = event_size(p, offset, "custom event", r, payload_size, where); !s) return s;
      if (version >= 5) {
        r.event_delta = load_le_i32(d + 4);
      } else {
        r.value = load_le64(d + 4);
        // Version 4 added the CPU. Earlier runtimes left these bytes
        // unwritten (LLVM's own writer fills them); the field is kept for
        // printing, and the expander trusts it from version 4 on only.
        r.cpu = load_le16(d + 12);
      }
      return {};
    case kCallArgument:
      r.kind = RecordKind::CallArgument;
      r.value = load_le64(d);
      return {};
    case kBufferExtents:
      if (version < 2) return make_error_at(where, offset, "BufferExtents record in a version 1 log");
      r.kind = RecordKind::BufferExtents;
      r.value = load_le64(d);
      return {};
    case kTypedEvent:
      r.kind = RecordKind::TypedEvent;
      if (auto s = event_size(p, offset, "typed event", r, payload_size, where); !s) return s;
      r.event_delta = load_le_i32(d + 4);
      r.event_type = load_le16(d + 8);
      return {};
    case kPid:
      r.kind = RecordKind::Pid;
      r.id = load_le_i32(d);
      return {};
    default:
      return make_error_at(where, offset,
                           "unknown metadata record kind " + std::to_string(kind) + " (first byte 0x" +
                               "0123456789abcdef"[p[0] >> 4] + "0123456789abcdef"[p[0] & 15] + ")");
  }
}

}  // namespace ttd::fmt::xray
