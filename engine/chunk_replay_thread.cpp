#include "engine/chunk_replay_thread.h"

#include <exception>
#include <system_error>

#include "engine/build_effect_log.h"

namespace ttd {

namespace {
constexpr size_t kWakeJobs = 8;     // chunks queued before the thread is woken
// submit() waits beyond this many chunks or bytes of logs and streams.
// Slack, so that neither thread waits for the other when the scheduler
// runs one of them late (a loaded machine), with bounded memory.
constexpr size_t kMaxQueued = 256;
constexpr size_t kMaxQueuedBytes = size_t(32) << 20;
constexpr size_t kMaxSpares = 16;  // spent log blocks and summary collectors kept for reuse, of each
}  // namespace

ChunkReplayThread::ChunkReplayThread(MachineState& live, std::vector<ThreadSlot> slots, AfterReplay after_replay)
    : live_(live), slots_(std::move(slots)), applier_(live_, slots_), after_replay_(std::move(after_replay)) {}

ChunkReplayThread::~ChunkReplayThread() { finish(); }

bool ChunkReplayThread::start() {
  try {
    thread_ = std::thread(&ChunkReplayThread::run, this);
    started_ = true;
  } catch (const std::system_error&) {
    started_ = false;
  }
  return started_;
}

void ChunkReplayThread::submit(Job&& job) {
  std::unique_lock<std::mutex> lock(mu_);
  if (queue_.size() >= kMaxQueued || queued_bytes_ >= kMaxQueuedBytes) {
    submitter_waiting_ = true;
    if (worker_waiting_) work_.notify_one();
    drained_.wait(lock, [&] { return queue_.size() < kMaxQueued / 2 && queued_bytes_ < kMaxQueuedBytes / 2; });
    submitter_waiting_ = false;
  }
  queued_bytes_ += job.effects.size + job.stream.size;
  queue_.push_back(std::move(job));
  if (worker_waiting_ && queue_.size() >= kWakeJobs) work_.notify_one();
}

void ChunkReplayThread::run() {
  std::deque<Job> batch;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      worker_waiting_ = true;
      work_.wait(lock, [&] { return done_ || queue_.size() >= kWakeJobs || (submitter_waiting_ && !queue_.empty()); });
      worker_waiting_ = false;
      if (queue_.empty() && done_) return;
      batch.swap(queue_);
      queued_bytes_ = 0;
      if (submitter_waiting_) drained_.notify_one();
    }
    for (Job& j : batch) {
      if (!error_.empty()) continue;  // the build has failed: drain without work
      try {
        replay(j);
        if (error_.empty()) after_replay_(j);
      } catch (const std::exception& e) {
        error_ = std::string("replaying a chunk into the live state failed: ") + e.what();
      }
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (Job& j : batch) {
        if (j.effects.bytes && spare_effects_.size() < kMaxSpares) spare_effects_.push_back(std::move(j.effects));
        // A collector is reusable once its summary was taken (not after an error).
        if (j.summary && error_.empty() && spare_summaries_.size() < kMaxSpares)
          spare_summaries_.push_back(std::move(j.summary));
      }
    }
    batch.clear();
  }
}

std::unique_ptr<ChunkSummaryBuilder> ChunkReplayThread::spare_summary() {
  std::lock_guard<std::mutex> lock(mu_);
  if (spare_summaries_.empty()) return nullptr;
  auto b = std::move(spare_summaries_.back());
  spare_summaries_.pop_back();
  return b;
}

ByteBlock ChunkReplayThread::spare_effects() {
  std::lock_guard<std::mutex> lock(mu_);
  if (spare_effects_.empty()) return {};
  ByteBlock b = std::move(spare_effects_.back());
  spare_effects_.pop_back();
  return b;
}

void ChunkReplayThread::replay(Job& job) {
  slots_.insert(slots_.end(), job.new_slots.begin(), job.new_slots.end());
  if (!BuildEffectLog::replay(job.effects.bytes.get(), job.effects.size, applier_))
    error_ = "internal error: a chunk's effect log just recorded does not read back";
}

std::string ChunkReplayThread::finish() {
  if (finished_) return error_;
  finished_ = true;
  if (started_) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      done_ = true;
    }
    work_.notify_one();
    thread_.join();
  }
  return error_;
}

}  // namespace ttd
