// The two-thread index build's hand-off (engine/chunk_replay_thread.h)
// bounds the memory of jobs not yet done, the ones being replayed
// included, and gives a job's log block and summary collector back for
// reuse as soon as that job is done. Before, the bound counted only the
// queue: a batch taken by the replay thread no longer counted, so twice
// the bound could be held (a Tenet build peaked at 65 MB of effect logs
// and 25 MB of collectors against a 32 MB bound).
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

#include "engine/chunk_replay_thread.h"
#include "state/arch.h"

using namespace ttd;

namespace {

using Clock = std::chrono::steady_clock;

// Holds the replay thread inside after_replay from the `hold_from`th job
// on until release().
class Gate {
 public:
  explicit Gate(size_t hold_from) : hold_from_(hold_from) {}
  void pass() {
    const size_t n = entered_++;
    if (n < hold_from_) return;
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return released_; });
  }
  void release() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      released_ = true;
    }
    cv_.notify_all();
  }
  size_t entered() const { return entered_; }

 private:
  size_t hold_from_;
  std::atomic<size_t> entered_{0};
  std::mutex mu_;
  std::condition_variable cv_;
  bool released_ = false;
};

ByteBlock block_of(size_t size, size_t capacity) {
  return ByteBlock{std::make_unique_for_overwrite<uint8_t[]>(capacity), size, capacity};
}

// Waits (at most 10 s) until `done` holds.
template <class F>
bool wait_for(F done) {
  const auto until = Clock::now() + std::chrono::seconds(10);
  while (!done()) {
    if (Clock::now() > until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

}  // namespace

TEST_CASE("chunk replay thread: jobs being replayed count against the memory bound") {
  MachineState live(arch_desc(ArchId::X86_64));
  Gate gate(0);
  ChunkReplayThread t(live, {}, [&](ChunkReplayThread::Job&) { gate.pass(); });
  REQUIRE(t.start());
  constexpr size_t kStream = size_t(1) << 20;
  const size_t jobs = 3 * ChunkReplayThread::kMaxBytesInFlight / kStream;
  std::atomic<size_t> submitted{0};
  std::thread submitter([&] {
    for (size_t i = 0; i < jobs; ++i) {
      ChunkReplayThread::Job j;
      j.stream = block_of(kStream, kStream);
      t.submit(std::move(j));
      ++submitted;
    }
  });
  // The replay thread holds its first job; the submitter stalls at the bound.
  CHECK(wait_for([&] { return gate.entered() >= 1; }));
  size_t seen = ~size_t(0);
  CHECK(wait_for([&] {
    const size_t now = submitted;
    if (now == seen) return true;
    seen = now;
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    return false;
  }));
  CHECK(submitted < jobs);
  CHECK(submitted * kStream <= ChunkReplayThread::kMaxBytesInFlight + kStream);
  CHECK(t.bytes_in_flight() <= ChunkReplayThread::kMaxBytesInFlight + kStream + sizeof(ChunkReplayThread::Job));
  gate.release();
  submitter.join();
  CHECK(t.finish().empty());
  CHECK(gate.entered() == jobs);
  CHECK(t.bytes_in_flight() == 0);
}

TEST_CASE("chunk replay thread: a job's log block and summary collector come back when it is done") {
  MachineState live(arch_desc(ArchId::X86_64));
  Gate gate(1);  // the first job passes, the second is held
  ChunkReplayThread t(live, {}, [&](ChunkReplayThread::Job& j) {
    if (j.summary) {
      ChunkSummary s;
      j.summary->take(s);
    }
    gate.pass();
  });
  REQUIRE(t.start());
  for (int i = 0; i < 8; ++i) {  // one wake-up's worth: a single batch
    ChunkReplayThread::Job j;
    j.effects = block_of(0, 4096);  // an empty log in a reusable block
    j.summary = std::make_unique<ChunkSummaryBuilder>();
    t.submit(std::move(j));
  }
  CHECK(wait_for([&] { return gate.entered() >= 2; }));
  // The batch is not done (its second job is held), its first job is.
  ByteBlock spare = t.spare_effects();
  CHECK(spare.capacity == 4096);
  CHECK(t.spare_summary() != nullptr);
  gate.release();
  CHECK(t.finish().empty());
  CHECK(t.bytes_in_flight() == 0);
}

TEST_CASE("chunk replay thread: a job's bytes count its log, stream and summary collector") {
  ChunkReplayThread::Job j;
  const size_t empty = ChunkReplayThread::job_bytes(j);
  j.effects = block_of(10, 1000);
  j.stream = block_of(20, 2000);
  CHECK(ChunkReplayThread::job_bytes(j) == empty + 3000);
  j.summary = std::make_unique<ChunkSummaryBuilder>();
  const size_t with_collector = ChunkReplayThread::job_bytes(j);
  CHECK(with_collector >= empty + 3000 + sizeof(ChunkSummaryBuilder));
  for (uint64_t pc = 0; pc < 100000; pc += 4) j.summary->pc(pc);  // its lists grow
  CHECK(ChunkReplayThread::job_bytes(j) >= with_collector + 25000 * sizeof(uint64_t));
}
