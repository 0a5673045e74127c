#include "formats/tt6/escape_records.h"

#include <cstdio>

#include "formats/tt6/tt6_layout.h"

namespace ttd::fmt::tt6 {

namespace {

AttrValue words_value(const uint8_t* words, uint32_t count) {
  if (count == 1) return uint64_t(load_be32(words));
  std::vector<uint64_t> list(count);
  for (uint32_t i = 0; i < count; ++i) list[i] = load_be32(words + 4 * i);
  return list;
}

std::string hex_code(const char* prefix, uint32_t code) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%s0x%02x", prefix, code);
  return buf;
}

}  // namespace

void PendingAttrs::flush(TraceSink& sink) {
  for (const auto& [key, value] : attrs_) sink.attr(key, value);
  attrs_.clear();
}

const char* sync_kind_name(uint32_t code) {
  switch (code) {
    case kSyncSignal: return "signal";
    case kSyncBroadcastSignal: return "broadcast";
    case kSyncWait: return "wait";
    case kSyncTryWait: return "try-wait";
    default: return nullptr;
  }
}

void note_instruction_escape(uint32_t code, const uint8_t* words, uint32_t count, PendingAttrs& pending) {
  const char* key = nullptr;
  switch (code) {
    case kEscapeSegmentRegister: key = "segment_register"; break;
    case kEscapeDataAddress: key = "data_addr"; break;
    case kEscapeConditionRegister: key = "cr"; break;
    case kEscapeRealBranchTarget: key = "real_branch_target"; break;
    case kEscapeRealDataAddress: key = "real_data_addr"; break;
    case kEscapeRealNextAddress: key = "real_next_pc"; break;
    default: break;
  }
  pending.add(key ? std::string(key) : hex_code("escape_", code), words_value(words, count));
}

void emit_sync_marker(TraceSink& sink, uint64_t tid, uint64_t pid, uint64_t pc, uint32_t code,
                      const uint8_t* words, uint32_t count) {
  sink.step(StepInfo{tid, pid, pc, 0, StepKind::Marker});
  const char* kind = sync_kind_name(code);
  sink.attr("sync", kind ? std::string(kind) : hex_code("sync-", code));
  if (count == 2) {
    sink.attr("sync_addr", uint64_t(load_be32(words)));
    sink.attr("sync_count", uint64_t(load_be32(words + 4)));
  } else if (count > 0) {
    // Not the spec's two words: keep what is there rather than guess.
    sink.attr("sync_words", words_value(words, count));
  }
}

}  // namespace ttd::fmt::tt6
