// A scripted step stream for engine tests: a tiny "program" whose steps,
// register writes and memory accesses are generated from a seed, played
// into any TraceSink. Also a reference replayer that applies the same
// stream linearly to a MachineState, independent of the index.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "formats/common/trace_reader.h"
#include "state/machine_state.h"

namespace ttd::test {

struct SynthEffect {
  enum Kind { Reg, Write, Read, Map } kind;
  uint64_t tid = 0;
  uint16_t reg = 0;
  uint64_t addr = 0;
  std::vector<uint8_t> bytes;
};
struct SynthStep {
  fmt::StepInfo info;
  std::vector<SynthEffect> effects;
};
struct SynthTrace {
  ArchId arch = ArchId::X86_64;
  std::vector<SynthEffect> initial;
  std::vector<SynthStep> steps;
};

// A loop-like program over `threads` threads: pcs cycle through a small
// set, registers count up, a few stack slots are written and read.
SynthTrace make_synthetic(uint64_t steps, uint32_t threads, uint64_t seed, ArchId arch = ArchId::X86_64);

class SynthReader : public fmt::TraceReader {
 public:
  explicit SynthReader(std::shared_ptr<const SynthTrace> t) : t_(std::move(t)) {}
  Status read(fmt::TraceSink& sink, const fmt::Progress& progress) override;

 private:
  std::shared_ptr<const SynthTrace> t_;
};

// Linear replay: the digest of the state at every EID 0..steps.size().
std::vector<uint64_t> reference_digests(const SynthTrace& t);

}  // namespace ttd::test
