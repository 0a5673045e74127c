#include "engine/parallel_index_build.h"

#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <map>
#include <mutex>
#include <system_error>
#include <thread>

#include "engine/segment_encoder.h"
#include "state/host_cpus.h"

namespace ttd {

unsigned parse_workers() {
  if (const char* e = std::getenv("TTD_BUILD_PARSE_THREADS"); e && *e) return unsigned(std::strtoul(e, nullptr, 10));
  // Off unless asked: a trace that names a second thread abandons the
  // segments when the scan meets it and builds again in order, so a
  // recording whose threads start late built 2 x slower (a 4-thread C++
  // program's 2 M-step trace: 1.07-1.13 s wall against 0.52-0.53 s). On
  // again once the scan carries threads, or the build goes on in order
  // from the last segment instead of starting over.
  return 0;
}

namespace {

struct Encoded {
  std::vector<EncodedChunk> chunks;
  std::vector<std::string> keys;
  std::string error;
  uint64_t file_done = 0, file_size = 0;
};

// The hand-offs between the scan, the workers and the caller, under one
// mutex; each waits on its own condition, so that a hand-off wakes only
// the thread it is for.
struct Pipeline {
  std::mutex mu;
  std::condition_variable work;   // workers: a segment to encode (or the end)
  std::condition_variable room;   // the scan: fewer segments ahead of the caller
  std::condition_variable taken_next;  // the caller: the next segment encoded
  std::deque<std::pair<uint64_t, std::unique_ptr<fmt::TraceSegment>>> todo;
  std::map<uint64_t, Encoded> done;  // by segment number, until taken
  uint64_t scanned = 0, taken = 0;
  bool scan_end = false, stop = false;
  std::string failure;
  void fail(std::string why) {
    std::lock_guard<std::mutex> l(mu);
    if (failure.empty()) failure = std::move(why);
    stop = true;
    wake_all();
  }
  void wake_all() {
    work.notify_all();
    room.notify_all();
    taken_next.notify_all();
  }
};

void scan(fmt::SegmentedRead& segmented, Pipeline& p, size_t ahead) {
  for (;;) {
    {
      std::unique_lock<std::mutex> l(p.mu);
      p.room.wait(l, [&] { return p.stop || p.scanned - p.taken < ahead; });
      if (p.stop) return;
    }
    Result<std::unique_ptr<fmt::TraceSegment>> seg = make_error("parallel parse", "no segment");
    try {
      seg = segmented.next();
    } catch (const std::exception& e) {
      return p.fail(std::string("scanning the trace failed: ") + e.what());
    }
    if (!seg) return p.fail(seg.error().to_string());
    std::lock_guard<std::mutex> l(p.mu);
    if (!*seg) {
      p.scan_end = true;
      p.work.notify_all();
      p.taken_next.notify_one();
      return;
    }
    p.todo.emplace_back(p.scanned++, std::move(*seg));
    p.work.notify_one();
  }
}

void encode(Pipeline& p, const ArchDesc& arch, uint32_t chunk_steps, const std::vector<ThreadSlot>& slots) {
  for (;;) {
    std::pair<uint64_t, std::unique_ptr<fmt::TraceSegment>> job;
    {
      std::unique_lock<std::mutex> l(p.mu);
      p.work.wait(l, [&] { return p.stop || !p.todo.empty() || p.scan_end; });
      if (p.stop || p.todo.empty()) return;
      job = std::move(p.todo.front());
      p.todo.pop_front();
    }
    const fmt::SegmentStart& start = job.second->start();
    Encoded out;
    out.file_done = start.file_done;
    out.file_size = start.file_size;
    try {
      SegmentEncoder enc(arch, chunk_steps, slots, start.eid > 0, start);
      Status s = job.second->read(enc);
      if (!s)
        out.error = s.error().to_string();
      else if (!enc.error().empty())
        out.error = enc.error();
      else if (!enc.complete())
        out.error = "a segment ended before its last step";
      out.chunks = std::move(enc.chunks());
      out.keys = enc.attr_keys();
    } catch (const std::exception& e) {
      out.error = std::string("encoding a segment failed: ") + e.what();
    }
    job.second.reset();  // its bytes, before the next
    std::lock_guard<std::mutex> l(p.mu);
    p.done.emplace(job.first, std::move(out));
    if (job.first == p.taken) p.taken_next.notify_one();
  }
}

}  // namespace

Status build_from_segments(fmt::SegmentedRead& segmented, IndexBuilder& builder, unsigned workers,
                           const fmt::Progress& progress) {
  if (Status s = segmented.read_head(builder); !s) return s;
  const ArchDesc* arch = builder.arch();
  const std::vector<ThreadSlot> slots = builder.threads();
  if (!arch) return make_error("parallel parse", "the trace reader produced no trace");
  if (slots.size() != 1) return make_error("parallel parse", "segments are read for one-thread traces only");
  workers = std::max(workers, 1u);

  Pipeline p;
  std::vector<std::thread> threads;
  try {
    threads.emplace_back(scan, std::ref(segmented), std::ref(p), size_t(2) * workers + 2);
    for (unsigned i = 0; i < workers; ++i)
      threads.emplace_back(encode, std::ref(p), std::cref(*arch), builder.chunk_steps(), std::cref(slots));
  } catch (const std::system_error& e) {
    p.fail(std::string("no thread: ") + e.what());
  }
  // Take the segments in order.
  for (;;) {
    Encoded seg;
    {
      std::unique_lock<std::mutex> l(p.mu);
      p.taken_next.wait(l, [&] { return p.stop || p.done.count(p.taken) || (p.scan_end && p.taken == p.scanned); });
      if (p.stop) break;
      auto it = p.done.find(p.taken);
      if (it == p.done.end()) break;  // all taken
      seg = std::move(it->second);
      p.done.erase(it);
    }
    if (!seg.error.empty()) {
      p.fail(seg.error);
      break;
    }
    if (!builder.adopt_attr_keys(seg.keys)) {
      p.fail("internal error: a segment's attribute keys contradict the ones before it");
      break;
    }
    for (EncodedChunk& c : seg.chunks) builder.adopt_chunk(std::move(c));
    if (progress && !progress(seg.file_done, seg.file_size)) {
      p.fail("read cancelled");
      break;
    }
    std::lock_guard<std::mutex> l(p.mu);
    ++p.taken;
    p.room.notify_one();
  }
  {
    std::lock_guard<std::mutex> l(p.mu);
    if (!p.failure.empty()) p.stop = true;
    p.wake_all();
  }
  for (std::thread& t : threads) t.join();
  if (!p.failure.empty()) return make_error("parallel parse", p.failure);
  return {};
}

}  // namespace ttd
