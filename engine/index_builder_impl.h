// Internal to the index builder: the state shared by engine/index_builder.cpp
// (the TraceSink calls, the two-thread hand-off) and
// engine/index_builder_finish.cpp (writing the tables, the header and the
// rename). Not for other modules: include engine/index_builder.h.
#pragma once
#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/attr_key_table.h"
#include "engine/blob_writer.h"
#include "engine/build_effect_log.h"
#include "engine/chunk_replay_thread.h"
#include "engine/chunk_summary_builder.h"
#include "engine/summary_filter_writer.h"
#include "engine/dedup_store.h"
#include "engine/index_builder.h"
#include "engine/index_directory_writer.h"
#include "engine/keyframe_codec.h"
#include "engine/keyframe_page_lists.h"
#include "engine/page_version_store.h"
#include "engine/state_apply.h"
#include "engine/step_codec.h"
#include "state/host_cpus.h"

namespace ttd {

struct IndexBuilder::Impl {
  std::string path, tmp_path;
  int tmp_fd = -1;  // the temporary file, locked until the index is adopted or removed
  SourceStamp stamp;
  uint64_t source_path_hash = 0;
  uint32_t chunk_steps;
  FILE* out = nullptr;
  std::unique_ptr<BlobWriter> blobs;
  std::string write_error;
  bool finished = false;

  IndexMeta meta;
  const ArchDesc* arch = nullptr;
  MachineState live;
  std::vector<ThreadSlot> slots;
  std::unordered_map<uint64_t, uint32_t> tidx_of;
  // In place rather than behind pointers: both are used on every effect.
  std::optional<StateApplier> applier;
  std::optional<StepEncoder> enc;

  // Two-thread build (docs/design.md, "Build threads"): from the first
  // chunk's end on, the live state, keyframes, pages, summaries and every
  // blob put belong to `replay`; this thread records the calls it would
  // make on the applier in `effects` (`deferred`) and each closed chunk
  // goes to `replay` as a job. With one usable CPU none of this starts.
  std::unique_ptr<ChunkReplayThread> replay;
  bool deferred = false;
  size_t slots_sent = 0;       // slots already in a job (or given at the start)
  ChunkReplayThread::Job job;  // the closed chunk, until the next one opens or the trace ends
  bool job_held = false;
  bool job_adopted = false;    // the held job came whole (adopt_chunk), effects included
  bool replay_used = false;
  BuildEffectLog effects;
  // A call on the live state: made at once, or recorded for the replay
  // thread. `f` is called with the StateApplier or the BuildEffectLog.
  template <class F>
  [[gnu::always_inline]] void live_call(F&& f) {
    if (deferred)
      f(effects);
    else
      f(*applier);
  }

  bool in_step = false;
  uint64_t steps = 0;
  uint64_t cur_tid = ~0ull;  // of the open step
  uint32_t cur_tidx = 0;
  // Steps of the open step's thread since its ThreadInfo was last brought
  // up to date (a run of one thread counts them here, not in meta.threads).
  uint64_t run_steps = 0;
  void commit_run() {
    if (run_steps == 0) return;
    ThreadInfo& ti = meta.threads[cur_tidx];
    ti.steps += run_steps;
    ti.last_eid = steps - 1;
    run_steps = 0;
  }
  uint64_t cur_pc = 0;
  uint32_t cur_size = 0;
  uint64_t cur_pid = 0;

  bool chunk_open = false;
  uint32_t until_chunk = 0;           // steps left before the next chunk starts
  ChunkBlobs chunk;
  uint64_t chunk_first_eid = 0;
  // Behind a pointer: on two CPUs a closed chunk's collector goes to the
  // replay thread whole (its sorting is a tenth of the reader thread's
  // work) and a spent one comes back.
  std::unique_ptr<ChunkSummaryBuilder> summary = std::make_unique<ChunkSummaryBuilder>();
  std::vector<ChunkBlobs> chunks;
  // Summaries are encoded as chunks close and written a group at a time,
  // so the builder does not hold them all.
  ChunkSummary closed_summary;
  ByteWriter summary_group;
  uint32_t summaries_in_group = 0;
  std::vector<uint64_t> summary_group_tickets;
  SummaryFilterWriter summary_filters;  // one pc and one access filter per summary group
  // Blob tickets (BlobWriter) of each chunk's stream and keyframe, and of
  // each stored page and segment; turned into BlobRefs by finish().
  struct ChunkTickets {
    uint64_t stream = 0, keyframe = 0;
  };
  std::vector<ChunkTickets> chunk_tickets;
  PageVersionStore pages;
  DedupStore segments;
  ByteWriter keyframe_buf;

  KeyframePageLists page_lists{
      [this](const std::shared_ptr<Page>& p, const Page* previous, uint64_t previous_id) {
        return pages.id_of(
            p, previous, previous_id, [&](const std::shared_ptr<Page>& whole) { return blobs->put(std::shared_ptr<const Page>(whole)); },
            [&](const uint8_t* d, size_t n) { return blobs->put(ByteBlock::copy_of(d, n), BlobKind::PageDelta); });
      },
      [this](const uint8_t* d, size_t n) {
        return segments.id_of(d, n, [&] { return blobs->put(ByteBlock::copy_of(d, n), BlobKind::Segment); });
      }};

  AttrKeyTable attr_keys{meta.attr_keys};
  uint32_t attr_id(std::string_view key) { return attr_keys.id(key); }

  uint64_t last_tid = ~0ull;
  uint32_t last_tidx = 0;

  // Each step sets its thread's pc twice (its address, then the address
  // after it); the live state only needs it at keyframes and before an
  // effect on the pc itself, so the value waits here until then.
  struct LazyPc {
    uint64_t pc = 0;
    bool due = false;      // pc not yet in the live state
    bool stepped = false;  // a step of the thread has created it in the live state
  };
  std::vector<LazyPc> lazy;  // by thread index
  void flush_pc(uint32_t tidx) {
    if (!lazy[tidx].due) return;
    lazy[tidx].due = false;
    live_call([&](auto& a) { a.position(tidx, lazy[tidx].pc); });
  }
  void flush_pcs() {
    for (uint32_t t = 0; t < lazy.size(); ++t) flush_pc(t);
  }

  // Steps mostly come in runs of one thread: that answer is inline.
  uint32_t thread_index(uint64_t tid, uint64_t pid) {
    if (tid == last_tid) [[likely]]
      return last_tidx;
    return other_thread_index(tid, pid);
  }
  [[gnu::noinline]] uint32_t other_thread_index(uint64_t tid, uint64_t pid) {
    last_tid = tid;
    auto it = tidx_of.find(tid);
    if (it != tidx_of.end()) return last_tidx = it->second;
    last_tidx = uint32_t(slots.size());
    uint32_t idx = last_tidx;
    slots.push_back(ThreadSlot{tid, pid});
    meta.threads.push_back(ThreadInfo{tid, pid, 0, 0, 0});
    lazy.emplace_back();
    tidx_of.emplace(tid, idx);
    return idx;
  }

  // The live state is at the chunk's first step (positioned by the
  // caller); with `deferred` the replay thread takes the keyframe.
  void open_chunk() {
    flush_pcs();
    if (!deferred) {
      take_keyframe();
      if (chunks.empty()) maybe_start_replay();
    }
    chunk = ChunkBlobs{};
    chunk_first_eid = steps;
    enc->reset();
    chunk_open = true;
  }

  void take_keyframe() {
    page_lists.update(live);
    keyframe_buf.clear();
    encode_keyframe(
        live, [this](uint64_t pid) -> const std::vector<KeyframeSegment>& { return page_lists.segments_of(pid); },
        keyframe_buf);
    chunk_tickets.push_back({0, blobs->put(keyframe_buf.take(blobs->spare(keyframe_buf.capacity())), BlobKind::Keyframe)});
  }

  // Hands the live state to a replay thread after the first keyframe,
  // when the process may use two CPUs or more.
  void maybe_start_replay() {
    if (replay || usable_cpus() < 2) return;
    auto r = std::make_unique<ChunkReplayThread>(live, slots, [this](ChunkReplayThread::Job& j) {
      after_replay(j);
    });
    if (!r->start()) return;  // no thread: this one goes on applying effects
    replay = std::move(r);
    slots_sent = slots.size();
    deferred = true;
    replay_used = true;
  }

  // On the replay thread: what close_chunk and open_chunk put, in the
  // one-thread build's order.
  void after_replay(ChunkReplayThread::Job& j) {
    chunk_tickets.back().stream = blobs->put(std::move(j.stream), BlobKind::Steps);
    j.summary->take(closed_summary);
    add_summary(closed_summary);
    if (j.opens_next) take_keyframe();
  }

  // Sends the held job with the effects recorded so far (with
  // `opens_next`, up to the next chunk's first step).
  void send_job(bool opens_next) {
    if (!job_held) return;
    job.opens_next = opens_next;
    if (!job_adopted) job.effects = effects.take(replay->spare_effects());
    job_adopted = false;
    job.new_slots.assign(slots.begin() + ptrdiff_t(slots_sent), slots.end());
    slots_sent = slots.size();
    replay->submit(std::move(job));
    job = {};
    job_held = false;
  }

  // Waits for the replay thread; afterwards this thread owns everything again.
  void stop_replay() {
    if (!replay) return;
    send_job(false);
    std::string err = replay->finish();
    if (!err.empty() && write_error.empty()) write_error = err;
    replay.reset();
    deferred = false;
  }

  void close_chunk() {
    if (!chunk_open) return;
    enc->end_step();
    ByteBlock stream = enc->out().take(blobs->spare(enc->out().capacity()));
    chunk.steps = uint32_t(steps - chunk_first_eid);
    if (deferred) {
      job.stream = std::move(stream);
      job.summary = std::move(summary);
      summary = replay->spare_summary();
      if (!summary) summary = std::make_unique<ChunkSummaryBuilder>();
      job_held = true;
    } else {
      chunk_tickets.back().stream = blobs->put(std::move(stream), BlobKind::Steps);
      summary->take(closed_summary);
      add_summary(closed_summary);
    }
    chunks.push_back(chunk);
    chunk_open = false;
  }

  void add_summary(const ChunkSummary& s) {
    encode_summary(summary_group, s);
    summary_filters.add(s);
    if (++summaries_in_group == kGroupEntries[size_t(IndexTable::Summaries)]) flush_summaries();
  }

  void flush_summaries() {
    if (summaries_in_group == 0) return;
    summary_group_tickets.push_back(blobs->put(summary_group.take(), BlobKind::Summaries));
    summaries_in_group = 0;
    summary_filters.end_summary_group(*blobs);
  }

  // The common step (the TraceSink call's and a batch's): the thread of
  // the step before, inside a chunk. What IndexBuilder::step's general
  // path does, less what cannot change: the thread's index, process and
  // chunk thread list, and its lazy pc already counts as stepped
  // (finish_step's pc is overwritten by this step's at once). False: the
  // general path must take the step.
  [[gnu::always_inline]] bool continue_run(uint64_t tid, uint64_t pc, uint32_t size, fmt::StepKind kind) {
    if (!(in_step && tid == cur_tid && until_chunk != 0)) [[unlikely]]
      return false;
    --until_chunk;
    LazyPc& lz = lazy[cur_tidx];
    lz.pc = pc;
    lz.due = true;
    ++run_steps;
    cur_pc = pc;
    cur_size = size;
    enc->begin_step(cur_tidx, cur_pid, pc, size, kind);
    summary->pc(pc);
    ++steps;
    return true;
  }

  // The effects' work, shared by the TraceSink calls and a batch's
  // effects; the thread index is the caller's.
  [[gnu::always_inline]] void reg_value(uint32_t tidx, uint16_t reg, uint64_t value, uint32_t bytes) {
    // reg() without the bytes: the encoder and the register file take the
    // integer as it is.
    if (in_step) {
      enc->reg_value(tidx, reg, value, bytes);
      summary->reg(reg);
    }
    if (reg == arch->pc_index) flush_pc(tidx);
    if (deferred) {
      uint8_t le[8];
      store_le64(le, value);
      effects.reg(tidx, reg, le, bytes);
    } else {
      applier->reg_value(tidx, reg, value, bytes);
    }
  }
  [[gnu::always_inline]] void mem_write(uint64_t pid, uint64_t addr, std::span<const uint8_t> bytes) {
    if (in_step) {
      enc->mem_write(pid, addr, bytes);
      summary->write(addr, bytes.size());
    }
    live_call([&](auto& a) { a.mem_write(pid, addr, bytes.data(), bytes.size()); });
  }
  [[gnu::always_inline]] void mem_read(uint64_t pid, uint64_t addr, uint32_t size, std::span<const uint8_t> bytes) {
    if (in_step) {
      enc->mem_read(pid, addr, size, bytes);
      summary->read(addr, size);
    }
    const uint8_t* value = bytes.size() == size && size ? bytes.data() : nullptr;
    if (!deferred)
      applier->mem_read(pid, addr, size, value);
    else if (value)
      effects.mem_write(pid, addr, value, size);  // what the applier does with a read's value
  }

  // What StateApplier::end_step does, deferred.
  void finish_step() {
    if (!in_step) return;
    if (cur_size) lazy[cur_tidx] = {cur_pc + cur_size, true, true};
    in_step = false;
  }

};

}  // namespace ttd
