#include "engine/chunk_replay_thread.h"

#include <exception>
#include <system_error>

#include "engine/build_effect_log.h"

namespace ttd {

namespace {
constexpr size_t kChunksBeforeWake = 8;  // chunks queued before the thread is woken
// submit() waits beyond this many chunks not yet done (and beyond
// kMaxBytesInFlight). Slack, so that neither thread waits for the other
// when the scheduler runs one of them late (a loaded machine), with
// bounded memory.
constexpr size_t kMaxQueued = 256;
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

size_t ChunkReplayThread::job_bytes(const Job& job) {
  return sizeof(Job) + job.effects.capacity + job.stream.capacity + (job.summary ? job.summary->bytes() : 0) +
         job.new_slots.capacity() * sizeof(ThreadSlot);
}

size_t ChunkReplayThread::bytes_in_flight() {
  std::lock_guard<std::mutex> lock(mu_);
  return bytes_in_flight_;
}

void ChunkReplayThread::submit(Job&& job) {
  job.bytes_counted = job_bytes(job);
  std::unique_lock<std::mutex> lock(mu_);
  if (jobs_in_flight_ >= kMaxQueued || bytes_in_flight_ >= kMaxBytesInFlight) {
    submitter_waiting_ = true;
    if (worker_waiting_ && !queue_.empty()) work_.notify_one();
    drained_.wait(lock, [&] { return jobs_in_flight_ < kMaxQueued / 2 && bytes_in_flight_ < kMaxBytesInFlight / 2; });
    submitter_waiting_ = false;
  }
  ++jobs_in_flight_;
  bytes_in_flight_ += job.bytes_counted;
  queue_.push_back(std::move(job));
  if (worker_waiting_ && queue_.size() >= kChunksBeforeWake) work_.notify_one();
}

void ChunkReplayThread::run() {
  std::deque<Job> batch;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      worker_waiting_ = true;
      work_.wait(lock, [&] { return done_ || queue_.size() >= kChunksBeforeWake || (submitter_waiting_ && !queue_.empty()); });
      worker_waiting_ = false;
      if (queue_.empty() && done_) return;
      batch.swap(queue_);
    }
    for (Job& j : batch) {
      if (error_.empty()) {  // after a failure: drain without work
        try {
          replay(j);
          if (error_.empty()) after_replay_(j);
        } catch (const std::exception& e) {
          error_ = std::string("replaying a chunk into the live state failed: ") + e.what();
        }
      }
      j.stream = {};
      std::lock_guard<std::mutex> lock(mu_);
      retire(j);
    }
    batch.clear();
  }
}

void ChunkReplayThread::retire(Job& j) {
  if (j.effects.bytes && spare_effects_.size() < kMaxSpares) spare_effects_.push_back(std::move(j.effects));
  // A collector is reusable once its summary was taken (not after an error).
  if (j.summary && error_.empty() && spare_summaries_.size() < kMaxSpares)
    spare_summaries_.push_back(std::move(j.summary));
  --jobs_in_flight_;
  bytes_in_flight_ -= j.bytes_counted;
  if (submitter_waiting_ && jobs_in_flight_ < kMaxQueued / 2 && bytes_in_flight_ < kMaxBytesInFlight / 2)
    drained_.notify_one();
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
