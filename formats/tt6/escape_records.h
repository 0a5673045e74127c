// TT6 escape records (primary opcode 0): what each means to the step
// stream. Thread-synchronisation records (codes 0x20-0x3F) are events of
// their own and become marker steps; the others (segment register, data /
// real addresses, condition register) describe the next instruction and
// become attributes of its step.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "formats/common/trace_sink.h"

namespace ttd::fmt::tt6 {

inline bool is_sync_escape(uint32_t code) { return code >= 0x20 && code <= 0x3F; }

// Attributes waiting for the next instruction step.
class PendingAttrs {
 public:
  bool empty() const { return attrs_.empty(); }
  void add(std::string key, AttrValue v) { attrs_.emplace_back(std::move(key), std::move(v)); }
  // Gives them to the step the sink has just started, and forgets them.
  void flush(TraceSink& sink);

 private:
  std::vector<std::pair<std::string, AttrValue>> attrs_;
};

// Escape codes 0x00-0x1F (and 0x40 up): notes attributes for the next
// instruction. `words` points at `count` big-endian longwords.
void note_instruction_escape(uint32_t code, const uint8_t* words, uint32_t count, PendingAttrs& pending);

// Codes 0x20-0x3F: emits one marker step at pc carrying the sync kind
// ("signal", "broadcast", "wait", "try-wait"), the sync point's address and
// its count.
void emit_sync_marker(TraceSink& sink, uint64_t tid, uint64_t pid, uint64_t pc, uint32_t code,
                      const uint8_t* words, uint32_t count);

const char* sync_kind_name(uint32_t code);  // nullptr for codes the spec reserves

}  // namespace ttd::fmt::tt6
