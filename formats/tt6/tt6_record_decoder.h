// Turns TT6/TT6E records (after INITIAL_PC) into steps and effects, for
// the reader (tt6_reader.h says what each record becomes). Works on
// whatever bytes the caller has in memory: decode() takes the complete
// records at the front and says how many bytes the next one needs, so the
// reader's buffer management stays outside and the hot loop keeps its
// cursor in registers.
#pragma once
#include <cstdint>
#include <string>

#include "formats/common/trace_sink.h"
#include "formats/tt6/code_bytes_cache.h"
#include "formats/tt6/escape_records.h"
#include "formats/tt6/ppc_opcode.h"
#include "state/error.h"

namespace ttd::fmt::tt6 {

class Tt6RecordDecoder {
 public:
  Tt6RecordDecoder(Variant variant, TraceSink& sink, std::string path, uint32_t initial_pc);

  struct Progress {
    size_t consumed = 0;  // bytes of complete records decoded
    size_t need = 0;      // bytes the next record needs (0 if the input ended on a record boundary)
  };
  // Decodes the complete records in [p, end); `offset` is p's file offset
  // (for errors). With at_eof, an incomplete record is an error.
  Result<Progress> decode(const uint8_t* p, const uint8_t* end, uint64_t offset, bool at_eof);
  // After the last record: escape attributes that no instruction followed
  // go on a marker step.
  void finish();
  uint64_t steps() const { return steps_; }

 private:
  enum class TrapState : uint8_t { None, AfterTrapWord, InVector };
  // TT6E's synthetic pair; true if the record was one of them.
  bool synthetic_trap_step(uint32_t op, RecordClass c, uint32_t next);
  Error cut_short(RecordClass c, uint32_t op, uint64_t offset, size_t need, size_t have) const;
  // The first record from q on that is not an escape record; null if the
  // bytes end first, with `need` = the bytes from q that would tell.
  const uint8_t* next_instruction_record(const uint8_t* q, const uint8_t* end, size_t& need) const;

  TraceSink& sink_;
  std::string path_;
  const OpcodeClassifier& classes_;
  const AccessTable& shapes_;
  const bool tt6e_;
  CodeBytesCache code_;
  PendingAttrs pending_;
  uint32_t pc_;
  TrapState trap_ = TrapState::None;
  uint64_t steps_ = 0;
};

}  // namespace ttd::fmt::tt6
