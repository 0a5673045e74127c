// The one decoder of an index chunk's steps: motion searches
// (engine/chunk_scan.h), history queries (engine/query/chunk_walk.h) and
// stepping (engine/step_timeline.h, which keeps the step headers of recent
// chunks and never asks for effects) all read chunks through it, so a
// chunk's step stream is decoded in one place.
//
// Effects are delta-coded across the steps of a chunk (addresses and
// register values), so a reader that wants effects of any step must decode
// the effects of every step before it in the chunk: call effects() after
// every next(), or never. The chunk last loaded is kept: loading it again
// (a search that comes back to the same chunk) does not read the index.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/index_file.h"
#include "engine/step_codec.h"
#include "engine/trace.h"

namespace ttd {

// One decoded step header with its thread resolved.
struct ChunkStep {
  uint64_t eid = 0;
  uint32_t tidx = 0;  // thread index in the index's thread table
  uint64_t tid = 0, pid = 0;
  uint64_t pc = 0;
  uint32_t size = 0;
  fmt::StepKind kind = fmt::StepKind::Instruction;
  DecodedStep raw;
};

// What load() does with a chunk whose summary could not be read.
enum class DamagedSummary : uint8_t {
  // Refuse it: the caller skips chunks by their summaries, and a skip
  // decision made on a damaged summary is not sound (history queries).
  Refuse,
  // Decode it: the caller treats a damaged summary as "may hit" and reads
  // the steps themselves (motion searches).
  Decode,
};

class ChunkSteps {
 public:
  explicit ChunkSteps(const Trace& t, DamagedSummary damaged = DamagedSummary::Refuse);

  const Trace& trace() const { return trace_; }
  const IndexFile& index() const { return index_; }
  size_t chunk_count() const { return index_.chunk_count(); }
  ChunkEntry chunk(size_t c) const { return index_.chunk(c); }
  std::shared_ptr<const ChunkSummary> summary(size_t c) const { return index_.summary(c); }
  size_t chunk_of(uint64_t eid) const { return index_.chunk_of(eid); }

  // Loads chunk c and positions before its first step; an error naming the
  // index and chunk when it cannot be read.
  Status load(size_t c);
  // Decodes the next step's header. False at the end of the chunk or on
  // corrupt data (a step of a thread the index does not list included);
  // status() tells which.
  bool next();
  // Decodes the current step's effects into v; false on corrupt data.
  bool effects(EffectVisitor& v);
  const ChunkStep& step() const { return step_; }
  Status status() const;

  // The current step's attributes as (key name id, value).
  bool attrs(std::vector<std::pair<uint32_t, fmt::AttrValue>>& out) const;
  // The id of an attribute key ("function", "tsc", ...), if the trace has it.
  std::optional<uint32_t> attr_key(const std::string& name) const;

 private:
  const Trace& trace_;
  const IndexFile& index_;
  DamagedSummary damaged_;
  std::string buf_;
  std::optional<size_t> buffered_;  // the chunk whose step stream buf_ holds
  std::optional<StepDecoder> dec_;
  size_t chunk_ = 0;
  uint64_t next_eid_ = 0, end_eid_ = 0;
  bool corrupt_ = false;
  ChunkStep step_;
};

// The error every reader of chunks reports for an unreadable chunk.
Error corrupt_chunk(const Trace& t, size_t chunk);

}  // namespace ttd
