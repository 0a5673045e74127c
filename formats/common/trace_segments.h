// A trace read in independent segments, so that several threads can parse
// it (the index build's parallel parse, docs/design.md "Parallel parse").
// A format that can find, cheaply, where its steps start offers this; the
// consumer reads the head once, then each segment on any thread, and puts
// what the segments produced back in order.
//
// A segment owns the steps [eid, end_eid). Its read() starts a little
// earlier, at lead_eid, so that the reader's own state (a step held until
// the next op shows where its effects end, a syscall attached to it) is
// what the whole read has there; the steps before eid are a lead-in whose
// calls the consumer ignores, except that their attribute keys count as
// used. A segment that does not reach the trace's end sends step(end_eid)
// last and stops without end(); the last one ends with end().
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "formats/common/trace_sink.h"
#include "state/error.h"

namespace ttd::fmt {

struct SegmentStart {
  static constexpr uint64_t kToEnd = ~0ull;
  uint64_t lead_eid = 0;  // EID of read()'s first step()
  uint64_t eid = 0;       // the first step the segment owns
  uint64_t end_eid = kToEnd;
  // Attribute keys the steps before lead_eid used, in order of first use.
  std::vector<std::string> attr_keys;
  uint64_t file_done = 0, file_size = 0;  // trace bytes scanned through this segment, for progress
};

class TraceSegment {
 public:
  virtual ~TraceSegment() = default;
  const SegmentStart& start() const { return start_; }
  // Sends the segment's steps and effects. May run on any thread, alongside
  // other segments' reads. An Error means the segment cannot be read on its
  // own (the consumer then reads the whole trace in order, which reports
  // any real error in the file).
  virtual Status read(TraceSink& sink) = 0;

 protected:
  SegmentStart start_;
};

class SegmentedRead {
 public:
  virtual ~SegmentedRead() = default;
  // begin() and the effects before step 0.
  virtual Status read_head(TraceSink& sink) = 0;
  // The next segment in trace order (after read_head), or null after the
  // last. Segments start at multiples of the segment length asked for.
  // An Error: the trace cannot be read in segments from here on (a case
  // the format does not cut, or a malformed stream).
  virtual Result<std::unique_ptr<TraceSegment>> next() = 0;
};

}  // namespace ttd::fmt
