// A UCIR trace in segments (formats/common/trace_segments.h), for a
// parallel index build. One thread (the caller of next()) decompresses the
// op stream, straight into the segment's buffer (a prefetch thread's
// copy-out cost ~2 % of a build), and walks it op by op without
// interpreting effects: it knows
// each op's length, counts OP_STEPs, follows the pc (OP_JMP sets it, each
// OP_STEP adds its size) and checks the frame structure. A segment is the
// decompressed ops from its lead-in step's OP_STEP to the OP_STEP after its
// end (whose arrival makes the assembler send step(end_eid)), with the pc
// there; it is parsed by the ordinary OpParser and StepAssembler.
//
// The lead-in is two steps: the step before the segment's first is then
// assembled whole (the ops after the OP_STEP before it, any syscall that
// attaches to it, an OP_EXIT that ends its thread), so the assembler's
// state at the first step owned is the whole read's.
//
// Only usercorn's single-thread traces are cut: a frame or keyframe
// naming another thread (ttd's extension) makes next() fail, and so does
// a malformed stream (the caller then reads it in order, which reports it).
#pragma once
#include <memory>
#include <optional>

#include "formats/common/trace_segments.h"
#include "formats/ucir/byte_buffer.h"

namespace ttd::fmt {

class UcirReader;
class SnappyFrameReader;
namespace ucir {
class Uc1RegisterMap;
}
struct SegmentBufferPool;

class UcirSegmentedRead final : public SegmentedRead {
 public:
  // `reader` must outlive this object.
  UcirSegmentedRead(UcirReader& reader, uint64_t segment_steps);
  ~UcirSegmentedRead() override;
  Status read_head(TraceSink& sink) override;
  Result<std::unique_ptr<TraceSegment>> next() override;

  // Lead-in steps before a segment's first (see above).
  static constexpr uint64_t kLeadSteps = 2;

 private:
  // Appends the next decoded chunk to buf_; false at the end of the
  // stream or on an error (error_ set).
  bool more();
  // Makes n bytes from pos_ available; false if the stream ends first.
  bool have(size_t n) {
    while (len_ - pos_ < n)
      if (!more()) return false;
    return true;
  }
  Error fail(const std::string& why);
  static constexpr size_t kFastRoom = 64;  // more than any op's fixed part
  std::unique_ptr<TraceSegment> cut(bool last);

  UcirReader& reader_;
  const uint64_t segment_steps_;
  std::unique_ptr<SnappyFrameReader> frames_;
  std::shared_ptr<const ucir::Uc1RegisterMap> regs_;
  // Segments' buffers come back here when read: a new megabyte buffer per
  // segment was an mmap, its page faults and an munmap each.
  std::shared_ptr<SegmentBufferPool> pool_;
  std::optional<Error> error_;

  ByteBuffer buf_;        // decompressed ops from the current segment's start
  size_t len_ = 0;        // bytes of buf_ filled
  size_t pos_ = 0;        // next op
  uint64_t base_ = 0;     // stream offset of buf_[0]
  bool eof_ = false, done_ = false;

  // The segment being scanned (its bytes start at buf_[0]).
  SegmentStart seg_;
  uint64_t seg_pc_ = 0;   // the assembler's pc at its first op

  uint64_t steps_ = 0;    // OP_STEPs seen
  uint64_t pc_ = 0;
  struct StepAt {
    size_t pos = 0;
    uint64_t pc = 0;
  };
  StepAt recent_[4];      // the last four OP_STEPs, by step number & 3
  uint64_t first_syscall_ = ~0ull;  // stream offset of the first OP_SYSCALL
  uint32_t frame_left_ = 0, nested_left_ = 0;
};

}  // namespace ttd::fmt
