#include "formats/tt6/tt6_record_decoder.h"

#include "formats/tt6/read_window.h"
#include "formats/tt6/tt6_access_effects.h"
#include "formats/tt6/tt6_reader.h"

namespace ttd::fmt::tt6 {

namespace {

const char* class_name(RecordClass c) {
  switch (c) {
    case RecordClass::Compute: return "COMPUTE";
    case RecordClass::FlowAltering: return "FLOW_ALTERING";
    case RecordClass::Memory: return "MEMORY";
    case RecordClass::MemoryExtended: return "MEMORY_EXTENDED";
    case RecordClass::Escape: return "escape";
  }
  return "?";
}

}  // namespace

Tt6RecordDecoder::Tt6RecordDecoder(Variant variant, TraceSink& sink, std::string path, uint32_t initial_pc)
    : sink_(sink),
      path_(std::move(path)),
      classes_(classifier(variant)),
      shapes_(access_table()),
      tt6e_(variant == Variant::Tt6e),
      pc_(initial_pc) {}

Error Tt6RecordDecoder::cut_short(RecordClass c, uint32_t op, uint64_t offset, size_t need, size_t have) const {
  if (c == RecordClass::Escape)
    return make_error_at(path_, offset,
                         "escape record (code " + hex32(escape_code(op)) + ") announces " +
                             std::to_string(escape_count(op)) + " longwords but only " + std::to_string(have - 4) +
                             " bytes follow");
  return make_error_at(path_, offset,
                       std::string(class_name(c)) + " record for opcode " + hex32(op) + " cut short: needs " +
                           std::to_string(need) + " bytes, " + std::to_string(have) + " left");
}

bool Tt6RecordDecoder::synthetic_trap_step(uint32_t op, RecordClass c, uint32_t next) {
  const bool branch = trap_ == TrapState::AfterTrapWord && c == RecordClass::FlowAltering && major_op(op) == 18 &&
                      next == kTrapVector;
  const bool rfi = trap_ == TrapState::InVector && op == kRfi;
  if (!branch && !rfi) {
    trap_ = TrapState::None;
    return false;
  }
  // Neither instruction ran at these addresses: size 0, no code bytes.
  sink_.step(StepInfo{kThreadId, kProcessId, pc_, 0, StepKind::Interrupt});
  if (!pending_.empty()) pending_.flush(sink_);
  sink_.attr("synthetic", std::string(branch ? "b 0x00000700" : "rfi"));
  trap_ = branch ? TrapState::InVector : TrapState::None;
  ++steps_;
  pc_ = next;
  return true;
}

const uint8_t* Tt6RecordDecoder::next_instruction_record(const uint8_t* q, const uint8_t* end, size_t& need) const {
  // Escape records (sync or not) leave the pc alone: skip them.
  const uint8_t* const from = q;
  for (;;) {
    if (end - q < 4) break;
    const uint32_t op = load_be32(q);
    if (classes_.classify(op) != RecordClass::Escape) return q;
    const size_t skip = 4 + size_t(escape_count(op)) * 4;
    if (size_t(end - q) < skip) {
      q += skip;
      break;
    }
    q += skip;
  }
  need = size_t(q - from) + 4;  // through the escapes seen, and the next record's first word
  return nullptr;
}

Result<Tt6RecordDecoder::Progress> Tt6RecordDecoder::decode(const uint8_t* p, const uint8_t* end, uint64_t offset,
                                                            bool at_eof) {
  const uint8_t* const start = p;
  auto incomplete = [&](RecordClass c, uint32_t op, size_t need) -> Result<Progress> {
    const size_t have = size_t(end - p);
    if (!at_eof) return Progress{size_t(p - start), need};
    if (have < 4)
      return make_error_at(path_, offset + uint64_t(p - start),
                           std::to_string(have) + " trailing bytes: a longword cut short");
    return cut_short(c, op, offset + uint64_t(p - start), need, have);
  };

  while (p != end) {
    if (end - p < 4) return incomplete(RecordClass::Compute, 0, 4);
    const uint32_t op = load_be32(p);
    const RecordClass c = classes_.classify(op);

    if (c == RecordClass::Escape) {
      const uint32_t code = escape_code(op), count = escape_count(op);
      const size_t bytes = 4 + size_t(count) * 4;
      if (size_t(end - p) < bytes) return incomplete(c, op, bytes);
      if (is_sync_escape(code)) {
        // The instruction at pc_ is in memory before the marker, though its
        // record (and so its code bytes) comes after: a debugger stopped at
        // the marker reads the instruction there (gdb reads it before a
        // PowerPC step, and gdb 13 hangs on the next step when it cannot).
        // So the code bytes go out before the marker's step when the next
        // instruction record is at hand; in TT6E's trap sequence the next
        // record may not have run at pc_, so not there.
        if (!tt6e_ || trap_ == TrapState::None) {
          size_t more = 0;
          const uint8_t* next = next_instruction_record(p + bytes, end, more);
          if (!next && !at_eof) return Progress{size_t(p - start), bytes + more};
          if (next && code_.note(pc_, load_be32(next))) sink_.mem_write(kProcessId, pc_, std::span<const uint8_t>(next, 4));
        }
        emit_sync_marker(sink_, kThreadId, kProcessId, pc_, code, p + 4, count);
        ++steps_;
      } else {
        note_instruction_escape(code, p + 4, count, pending_);
      }
      p += bytes;
      continue;
    }

    const size_t bytes = record_words(c) * 4;
    if (size_t(end - p) < bytes) return incomplete(c, op, bytes);
    uint32_t next = pc_ + 4, ea = 0, third = 0;
    if (c == RecordClass::FlowAltering) {
      next = load_be32(p + 4);
      if (next & 3)
        return make_error_at(path_, offset + uint64_t(p - start) + 4,
                             "next-instruction address " + hex32(next) + " is not word aligned");
    } else if (c != RecordClass::Compute) {
      ea = load_be32(p + 4);
      if (c == RecordClass::MemoryExtended) third = load_be32(p + 8);
    }
    if (tt6e_ && trap_ != TrapState::None && synthetic_trap_step(op, c, next)) {
      p += bytes;
      continue;
    }

    if (code_.note(pc_, op)) sink_.mem_write(kProcessId, pc_, std::span<const uint8_t>(p, 4));
    sink_.step(StepInfo{kThreadId, kProcessId, pc_, 4, is_syscall(op) ? StepKind::Syscall : StepKind::Instruction});
    if (!pending_.empty()) pending_.flush(sink_);
    if (c >= RecordClass::Memory) emit_tt6_access(sink_, kProcessId, shapes_.shape(op), op, ea, third);
    if (tt6e_ && is_trap_word(op)) trap_ = TrapState::AfterTrapWord;
    ++steps_;
    pc_ = next;
    p += bytes;
  }
  return Progress{size_t(p - start), 0};
}

void Tt6RecordDecoder::finish() {
  if (pending_.empty()) return;
  // Escape records after the last instruction describe nothing that ran:
  // keep them on a marker so they are not lost.
  sink_.step(StepInfo{kThreadId, kProcessId, pc_, 0, StepKind::Marker});
  pending_.flush(sink_);
  ++steps_;
}

}  // namespace ttd::fmt::tt6
