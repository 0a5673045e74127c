// Every step of a trace in order, with its effects and attributes: the
// engine's public face of its one chunk decoder (engine/chunk_steps.h),
// for tools that forward a whole trace (`ttd convert --to ucir`), so they
// include neither the chunk decoder nor the index and step codec below it.
//
// Effects are delta-coded along the steps of a chunk: call effects() after
// every next(), or never (the contract of ChunkSteps). A chunk whose summary
// is damaged is refused with an error naming the index and chunk.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/effect_visitor.h"
#include "engine/trace.h"

namespace ttd {

class ChunkSteps;

// One step's header, its thread resolved.
struct StreamStep {
  uint64_t eid = 0;
  uint32_t tidx = 0;  // thread index, as EffectVisitor's
  uint64_t tid = 0, pid = 0;
  uint64_t pc = 0;
  uint32_t size = 0;
  fmt::StepKind kind = fmt::StepKind::Instruction;
};

class StepStream {
 public:
  explicit StepStream(const Trace& t);
  ~StepStream();
  StepStream(const StepStream&) = delete;
  StepStream& operator=(const StepStream&) = delete;

  // Decodes the next step's header. False at the end of the trace or on an
  // unreadable chunk; status() tells which.
  bool next();
  const StreamStep& step() const { return step_; }
  // Decodes the current step's effects into v; false on corrupt data.
  bool effects(EffectVisitor& v);
  // The current step's attributes as (key name id, value).
  bool attrs(std::vector<std::pair<uint32_t, fmt::AttrValue>>& out) const;
  // The id of an attribute key ("syscall", "args", ...), if the trace has it.
  std::optional<uint32_t> attr_key(const std::string& name) const;
  Status status() const;

 private:
  std::unique_ptr<ChunkSteps> chunks_;
  std::optional<size_t> chunk_;  // the chunk loaded, if any
  Status failed_;                // a chunk that could not be loaded
  StreamStep step_;
};

}  // namespace ttd
