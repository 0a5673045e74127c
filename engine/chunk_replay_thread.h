// The live-state half of a two-thread index build. The builder's own
// thread runs the trace reader, encodes each chunk's step stream and
// gathers its summary, and records the calls it would make on the live
// state (engine/build_effect_log.h); this thread makes those calls on the
// live MachineState, so it reaches the state the one-thread build reaches
// at every chunk start, then hands the chunk to `after_replay`, which
// writes its stream, its summary (and summary filters) and the next
// chunk's keyframe in the one-thread build's order.
//
// Hand-offs go in batches (the thread is woken once per kWakeJobs chunks:
// waking a sleeping thread costs tens of microseconds on a VM) and memory
// is bounded: submit() waits while the jobs not yet done (queued or being
// replayed) hold kMaxBytesInFlight bytes (logs, streams and summary
// collectors; job_bytes()) or 256 chunks, so it does not grow with the
// trace. Each job's bytes are released, and its log block and collector
// offered for reuse, as soon as that job is done, not when its batch is.
//
// After start(), `live` and everything `after_replay` touches belong to
// this thread until finish() returns. Exceptions stay inside: an exception
// or a log that does not read back becomes finish()'s error.
#pragma once
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "engine/byte_codec.h"
#include "engine/chunk_summary_builder.h"
#include "engine/index_layout.h"
#include "engine/state_apply.h"
#include "state/machine_state.h"

namespace ttd {

class ChunkReplayThread {
 public:
  struct Job {
    ByteBlock effects;                   // BuildEffectLog: up to the next chunk's start
    ByteBlock stream;                    // the closed chunk's step stream
    std::vector<ThreadSlot> new_slots;   // threads added to the index's table since the last job
    std::unique_ptr<ChunkSummaryBuilder> summary;  // the closed chunk's, not yet taken
    bool opens_next = false;             // a chunk follows (its keyframe is due)
    size_t bytes_counted = 0;            // job_bytes() when submitted; set by submit()
  };
  // Called on the thread after each job's effects are applied (the live
  // state is then at the next chunk's first step, if one follows).
  using AfterReplay = std::function<void(Job& job)>;

  // `slots` are the threads known when the thread takes over.
  ChunkReplayThread(MachineState& live, std::vector<ThreadSlot> slots, AfterReplay after_replay);
  ~ChunkReplayThread();
  ChunkReplayThread(const ChunkReplayThread&) = delete;
  ChunkReplayThread& operator=(const ChunkReplayThread&) = delete;

  // Starts the thread; false if none can be started (then nothing changed
  // hands and the caller goes on alone).
  bool start();
  void submit(Job&& job);
  // An effect log block this thread is done with (empty if none), for the
  // caller's next log: reusing it spares the allocator a cross-thread free.
  ByteBlock spare_effects();
  // A summary collector whose summary was taken (empty if none).
  std::unique_ptr<ChunkSummaryBuilder> spare_summary();
  // Waits until every job is done and stops the thread. Returns the first
  // error (empty if none); after an error later jobs are dropped.
  std::string finish();

  // submit() waits while jobs not yet done hold this many bytes or more
  // (until they hold less than half), or 256 chunks.
  static constexpr size_t kMaxBytesInFlight = size_t(16) << 20;
  // What a job holds in memory, as counted against kMaxBytesInFlight.
  static size_t job_bytes(const Job& job);
  // Bytes held by jobs submitted and not yet done. For tests.
  size_t bytes_in_flight();

 private:
  void run();
  void replay(Job& job);
  // With mu_ held: the job is done; releases its bytes and keeps its
  // log block and collector for reuse.
  void retire(Job& job);

  MachineState& live_;
  std::vector<ThreadSlot> slots_;  // the thread's copy of the index's thread table
  StateApplier applier_;
  AfterReplay after_replay_;
  std::string error_;  // written by the thread, read after join

  std::mutex mu_;
  std::condition_variable work_, drained_;
  std::deque<Job> queue_;  // guarded by mu_
  size_t jobs_in_flight_ = 0;   // submitted, not yet done; guarded by mu_
  size_t bytes_in_flight_ = 0;  // their job_bytes(); guarded by mu_
  std::vector<ByteBlock> spare_effects_;  // guarded by mu_
  std::vector<std::unique_ptr<ChunkSummaryBuilder>> spare_summaries_;  // guarded by mu_
  bool done_ = false;      // guarded by mu_
  bool worker_waiting_ = false, submitter_waiting_ = false;  // guarded by mu_
  bool started_ = false, finished_ = false;
  std::thread thread_;
};

}  // namespace ttd
