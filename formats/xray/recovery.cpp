#include "formats/xray/fdr_layout.h"
#include "formats/xray/fdr_record.h"

namespace ttd::fmt::xray {

std::string record_name_from_first_byte(uint8_t first) {
  if (!is_metadata(first)) return "function record";
  static const char* names[] = {"NewBuffer",    "EndOfBuffer",  "NewCPUId",      "TSCWrap",     "WallTime",
                                "custom event", "CallArgument", "BufferExtents", "typed event", "Pid"};
  uint8_t k = metadata_kind(first);
  return k < kMetadataKindCount ? std::string(names[k]) + " record" : "metadata record";
}

std::string describe(const Recovery& r) {
  auto n = [](uint64_t v) { return std::to_string(v); };
  std::string buffer = "buffer at offset " + n(r.buffer_offset) + " (thread " + n(r.thread) + ")";
  if (r.certain)
    return buffer + ": BufferExtents is short by 16 bytes per typed event (compiler-rt bug, " + n(r.typed_events) +
           " typed event(s)), so the " + record_name_from_first_byte(r.cut_byte) + " at offset " + n(r.offset) +
           " is cut off at the buffer end " + n(r.offset + r.skipped) + "; skipped bytes " + n(r.offset) + ".." +
           n(r.offset + r.skipped) + " (" + n(r.skipped) + " bytes); at least " + n(r.lost) +
           " bytes of this buffer were never written";
  return buffer + " holds " + n(r.typed_events) + " typed event(s) and ends cleanly at offset " + n(r.offset) + "; " +
         (r.runtime_writer ? "the writer is compiler-rt's FDR runtime, whose" : "if written by compiler-rt, its") +
         " BufferExtents omits 16 bytes per typed event, so the last " + n(r.lost) + " bytes (up to " + n(r.lost / 8) +
         " function records) of this buffer are " + (r.runtime_writer ? "probably" : "possibly") + " missing";
}

}  // namespace ttd::fmt::xray
