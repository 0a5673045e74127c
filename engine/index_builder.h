// Write side of a trace index: a TraceSink that replays the format's step
// stream into a live MachineState, encodes steps into chunks with their
// summaries, takes a keyframe at every chunk start (pages deduplicated by
// content across all keyframes) and finally writes the index atomically.
#pragma once
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/index_file.h"
#include "formats/common/step_batch.h"
#include "formats/common/trace_sink.h"

namespace ttd {

struct EncodedChunk;
struct ThreadSlot;
struct ArchDesc;

// A register effect for a thread never announced (by a step or by
// thread_begin) creates it in the process of the current step, or in
// process 1 before the first step.
class IndexBuilder : public fmt::TraceSink, public fmt::BatchSink {
 public:
  // Writes to `index_path` (through a locked temporary file,
  // engine/index_temp_files.h) once finish() is called. Text from the
  // trace (TraceInfo, attribute keys and strings, mapping names) is made
  // valid UTF-8 here (engine/trace_text.h).
  IndexBuilder(std::string index_path, SourceStamp stamp, uint64_t source_path_hash, uint32_t chunk_steps);
  ~IndexBuilder() override;

  void begin(const fmt::TraceInfo& info) override;
  void step(const fmt::StepInfo& s) override;
  void steps(const fmt::StepBatch& b) override;
  void attr(std::string_view key, const fmt::AttrValue& v) override;
  AttrKey attr_key(std::string_view key) override;
  void attr_u64(AttrKey key, uint64_t v) override;
  void attr_u64s(const AttrKey* keys, const uint64_t* values, size_t n) override;
  void reg(uint64_t tid, uint16_t reg, std::span<const uint8_t> value) override;
  void reg_value(uint64_t tid, uint16_t reg, uint64_t value, uint32_t bytes) override;
  void reg_unknown(uint64_t tid, uint16_t reg) override;
  void mem_write(uint64_t pid, uint64_t addr, std::span<const uint8_t> bytes) override;
  void mem_read(uint64_t pid, uint64_t addr, uint32_t size, std::span<const uint8_t> bytes) override;
  void mem_unknown(uint64_t pid, uint64_t addr, uint64_t size) override;
  void mem_map(uint64_t pid, uint64_t addr, uint64_t size, uint8_t prot, std::string_view name) override;
  void mem_unmap(uint64_t pid, uint64_t addr, uint64_t size) override;
  void mem_protect(uint64_t pid, uint64_t addr, uint64_t size, uint8_t prot) override;
  void thread_begin(uint64_t tid, uint64_t pid) override;
  void thread_end(uint64_t tid) override;
  void revise(const fmt::TraceInfo& info) override;
  void end() override;

  // The whole-trace hash (SourceStamp::content_hash), when it is known
  // only after the build started.
  void set_source_content_hash(uint64_t h);

  // Writes the index file (atomically) and returns it opened. Call after
  // the reader succeeded; if it is never called the temporary file is
  // removed. The build time recorded is from `started` until every blob is
  // written. `may_replace`, if given, is asked just before the rename and
  // stops it with its error.
  Result<std::unique_ptr<IndexFile>> finish(std::chrono::steady_clock::time_point started,
                                            const std::function<Status()>& may_replace = {});

  // Parallel parse (engine/parallel_index_build.h). After the trace's head
  // (begin() and the effects before step 0) came through the calls above,
  // the chunks come whole, encoded on other threads (SegmentEncoder), and
  // are taken in trace order as if their steps and effects had come here.
  // What a segment's encoder starts with: the architecture, the threads
  // (the same at every segment start: a trace that adds some is built in
  // order).
  const ArchDesc* arch() const;
  uint32_t chunk_steps() const;
  std::vector<ThreadSlot> threads() const;
  void adopt_chunk(EncodedChunk&& c);
  // The attribute keys a segment used (its encoder's, in order of first
  // use); false if they contradict the keys taken so far.
  bool adopt_attr_keys(const std::vector<std::string>& keys);

  // Whether the live state was replayed on a thread of its own (two or
  // more usable CPUs; docs/design.md, "Build threads"). For tests.
  bool used_replay_thread() const;

  // The page budget (docs/design.md, "Build page budget"): the live
  // state's cold pages are evicted to a spill file while the pages held
  // exceed it. TTD_BUILD_PAGE_BUDGET_MB sets it (MB, fractions allowed; 0: no budget); else
  // kDefaultPageBudgetMB.
  static constexpr size_t kDefaultPageBudgetMB = 640;
  static size_t page_budget_pages();
  // Pages evicted and read back so far, the spill file's size in pages.
  // For tests and benchmarks (after finish(), or on a one-core build).
  struct PageBudgetStats {
    uint64_t evicted = 0, read_back = 0, spill_pages = 0;
  };
  PageBudgetStats page_budget_stats() const;

 private:
  void step_general(const fmt::StepInfo& s);  // a step that does not continue the open thread's run in its chunk
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ttd
