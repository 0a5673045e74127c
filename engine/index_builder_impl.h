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
#include "engine/chunk_step_recorder.h"
#include "engine/chunk_summary_builder.h"
#include "engine/summary_filter_writer.h"
#include "engine/dedup_store.h"
#include "engine/index_builder.h"
#include "engine/index_directory_writer.h"
#include "engine/keyframe_codec.h"
#include "engine/keyframe_page_lists.h"
#include "engine/page_version_store.h"
#include "engine/segment_version_store.h"
#include "engine/state_apply.h"
#include "engine/step_codec.h"
#include "state/byte_order.h"  // store_le64
#include "state/host_cpus.h"

namespace ttd {

// The steps and effects go through ChunkStepRecorder (shared with
// SegmentEncoder); the rest is the chunks, the blobs and the replay thread.
struct IndexBuilder::Impl : ChunkStepRecorder<IndexBuilder::Impl> {
  Impl() : ChunkStepRecorder(std::make_unique<ChunkSummaryBuilder>()) {}

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
  MachineState live;
  std::vector<ThreadSlot> slots;
  std::unordered_map<uint64_t, uint32_t> tidx_of;
  // In place rather than behind a pointer: used on every effect.
  std::optional<StateApplier> applier;

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
  // StateApplier::reg_value and mem_read, made at once or recorded as the
  // calls that do the same.
  [[gnu::always_inline]] void live_reg_value(uint32_t tidx, uint16_t reg, uint64_t value, uint32_t bytes) {
    if (deferred) {
      uint8_t le[8];
      store_le64(le, value);
      effects.reg(tidx, reg, le, bytes);
    } else {
      applier->reg_value(tidx, reg, value, bytes);
    }
  }
  [[gnu::always_inline]] void live_mem_read(uint64_t pid, uint64_t addr, uint32_t size, const uint8_t* value) {
    if (!deferred)
      applier->mem_read(pid, addr, size, value);
    else if (value)
      effects.mem_write(pid, addr, value, size);  // what the applier does with a read's value
  }
  // For ChunkStepRecorder: a thread's step counts are the index's.
  ThreadInfo& thread_steps(uint32_t tidx) { return meta.threads[tidx]; }

  bool chunk_open = false;
  ChunkBlobs chunk;
  uint64_t chunk_first_eid = 0;
  // `summary` (ChunkStepRecorder's) is behind a pointer: on two CPUs a
  // closed chunk's collector goes to the replay thread whole (its sorting
  // is a tenth of the reader thread's work) and a spent one comes back.
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
  SegmentVersionStore segments;
  ByteWriter keyframe_buf;

  KeyframePageLists page_lists{
      [this](const std::shared_ptr<Page>& p, const Page* previous, uint64_t previous_id) {
        return pages.id_of(
            p, previous, previous_id, [&](const std::shared_ptr<Page>& whole) { return blobs->put(std::shared_ptr<const Page>(whole)); },
            [&](const uint8_t* d, size_t n) { return blobs->put(ByteBlock::copy_of(d, n), BlobKind::PageDelta); });
      },
      [this](const std::vector<KeyframePage>& pg, uint64_t key, const std::vector<KeyframePage>& previous,
             uint64_t previous_id) {
        return segments.id_of(pg.data(), pg.size(), key, previous.data(), previous.size(), previous_id,
                              [&](const uint8_t* d, size_t n) { return blobs->put(ByteBlock::copy_of(d, n), BlobKind::Segment); });
      }};

  AttrKeyTable attr_keys{meta.attr_keys};
  uint32_t attr_id(std::string_view key) { return attr_keys.id(key); }

  uint64_t last_tid = ~0ull;
  uint32_t last_tidx = 0;

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
    chunk_first_eid = next_eid;
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
    chunk.steps = uint32_t(next_eid - chunk_first_eid);
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
};

}  // namespace ttd
