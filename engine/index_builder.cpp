#include "engine/index_builder.h"

#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>
#include <unordered_map>

#include "engine/attr_key_table.h"
#include "engine/blob_writer.h"
#include "engine/build_effect_log.h"
#include "engine/chunk_replay_thread.h"
#include "engine/chunk_summary_builder.h"
#include "engine/summary_filter_writer.h"
#include "engine/dedup_store.h"
#include "engine/index_directory_writer.h"
#include "engine/index_temp_files.h"
#include "engine/keyframe_codec.h"
#include "engine/keyframe_page_lists.h"
#include "engine/mapped_files_at_build.h"
#include "engine/page_version_store.h"
#include "engine/state_apply.h"
#include "engine/step_codec.h"
#include "engine/trace_text.h"
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
    job.effects = effects.take(replay->spare_effects());
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

  // What StateApplier::end_step does, deferred.
  void finish_step() {
    if (!in_step) return;
    if (cur_size) lazy[cur_tidx] = {cur_pc + cur_size, true, true};
    in_step = false;
  }

};

IndexBuilder::IndexBuilder(std::string index_path, SourceStamp stamp, uint64_t source_path_hash,
                           uint32_t chunk_steps)
    : impl_(new Impl) {
  impl_->path = std::move(index_path);
  impl_->stamp = stamp;
  impl_->source_path_hash = source_path_hash;
  impl_->chunk_steps = std::max<uint32_t>(chunk_steps, 1);
  auto tmp = create_temp_index(impl_->path);
  if (tmp) {
    impl_->tmp_path = tmp->path;
    impl_->tmp_fd = tmp->fd;
    // Its own descriptor for the stream: tmp_fd stays open (and locked)
    // for adopt() after the stream is closed.
    int w = ::dup(tmp->fd);
    if (w >= 0) impl_->out = ::fdopen(w, "wb");
    if (w >= 0 && !impl_->out) ::close(w);
  }
  if (!impl_->out) {
    impl_->write_error = tmp ? "cannot write " + impl_->tmp_path + ": " + std::strerror(errno) : tmp.error().to_string();
  } else {
    // Blobs are small (a page, a chunk stream): a large buffer turns
    // hundreds of thousands of write(2) calls into a few hundred.
    std::setvbuf(impl_->out, nullptr, _IOFBF, size_t(4) << 20);
    static char header_space[kIndexHeaderSize] = {0};
    std::fwrite(header_space, 1, kIndexHeaderSize, impl_->out);
  }
  impl_->blobs = std::make_unique<BlobWriter>(impl_->out, kIndexHeaderSize);
}

IndexBuilder::~IndexBuilder() {
  if (impl_->replay) impl_->replay->finish();  // before the state and the writer it uses go
  impl_->blobs.reset();  // stops the writer thread before the file goes
  if (impl_->out) std::fclose(impl_->out);
  if (!impl_->finished && !impl_->tmp_path.empty()) {
    ::unlink(impl_->tmp_path.c_str());
    forget_temp_index(impl_->tmp_path);
  }
  if (impl_->tmp_fd >= 0) ::close(impl_->tmp_fd);
}

bool IndexBuilder::used_replay_thread() const { return impl_->replay_used; }

void IndexBuilder::set_source_content_hash(uint64_t h) { impl_->stamp.content_hash = h; }

void IndexBuilder::begin(const fmt::TraceInfo& info) {
  auto& I = *impl_;
  I.meta.info = info;
  make_text_valid(I.meta.info);
  I.arch = &arch_desc(info.arch);
  I.live = MachineState(*I.arch);
  I.applier.emplace(I.live, I.slots);
  I.enc.emplace(*I.arch);
}

void IndexBuilder::revise(const fmt::TraceInfo& info) {
  fmt::TraceInfo valid;
  valid.properties = info.properties;
  make_text_valid(valid);
  impl_->meta.info.properties = std::move(valid.properties);
}

void IndexBuilder::step(const fmt::StepInfo& s) {
  auto& I = *impl_;
  // The common step: the thread of the step before, inside a chunk. What
  // the general path below does, less what cannot change: the thread's
  // index, process and chunk thread list, and its lazy pc already counts
  // as stepped (finish_step's pc is overwritten by this step's at once).
  if (I.in_step && s.tid == I.cur_tid && I.until_chunk != 0) [[likely]] {
    --I.until_chunk;
    Impl::LazyPc& lz = I.lazy[I.cur_tidx];
    lz.pc = s.pc;
    lz.due = true;
    ++I.run_steps;
    I.cur_pc = s.pc;
    I.cur_size = s.size;
    I.enc->begin_step(I.cur_tidx, I.cur_pid, s.pc, s.size, s.kind);
    I.summary->pc(s.pc);
    ++I.steps;
    return;
  }
  I.commit_run();
  I.finish_step();
  uint32_t tidx = I.thread_index(s.tid, s.pid);
  if (I.until_chunk == 0) {
    I.close_chunk();
    I.flush_pcs();
    I.live_call([&](auto& a) { a.position(tidx, s.pc); });
    if (I.deferred) I.send_job(true);
    I.open_chunk();
    I.until_chunk = I.chunk_steps;
  }
  --I.until_chunk;
  ThreadInfo& ti = I.meta.threads[tidx];
  if (ti.steps == 0) ti.first_eid = I.steps;
  ti.last_eid = I.steps;
  ++ti.steps;
  I.cur_tidx = tidx;
  I.cur_tid = s.tid;
  I.cur_pc = s.pc;
  I.cur_size = s.size;
  I.cur_pid = I.slots[tidx].pid;
  if (I.lazy[tidx].stepped) {  // StateApplier::begin_step, deferred
    I.lazy[tidx] = {s.pc, true, true};
  } else {
    I.live_call([&](auto& a) { a.begin_step(tidx, s.pc, s.size); });
    I.lazy[tidx] = {s.pc, false, true};
  }
  I.enc->begin_step(tidx, I.cur_pid, s.pc, s.size, s.kind);
  I.summary->pc(s.pc);
  I.summary->thread(tidx);
  I.in_step = true;
  ++I.steps;
}

void IndexBuilder::attr(std::string_view key, const fmt::AttrValue& v) {
  auto& I = *impl_;
  if (!I.in_step) return;
  if (const auto* text = std::get_if<std::string>(&v); text && !is_valid_utf8(*text)) {
    I.enc->attr(I.attr_id(key), fmt::AttrValue(text_from_trace(*text)));
    return;
  }
  I.enc->attr(I.attr_id(key), v);
}

fmt::TraceSink::AttrKey IndexBuilder::attr_key(std::string_view key) { return impl_->attr_id(key); }

void IndexBuilder::attr_u64(AttrKey key, uint64_t v) {
  auto& I = *impl_;
  if (I.in_step) I.enc->attr_u64(key, v);
}

void IndexBuilder::attr_u64s(const AttrKey* keys, const uint64_t* values, size_t n) {
  auto& I = *impl_;
  if (I.in_step) I.enc->attr_u64s(keys, values, n);
}

void IndexBuilder::reg(uint64_t tid, uint16_t reg, std::span<const uint8_t> value) {
  auto& I = *impl_;
  if (reg >= I.arch->regs.size()) return;
  uint32_t tidx = I.thread_index(tid, I.in_step ? I.cur_pid : 1);
  if (I.in_step) {
    I.enc->reg(tidx, reg, value);
    I.summary->reg(reg);
  }
  if (reg == I.arch->pc_index) I.flush_pc(tidx);
  I.live_call([&](auto& a) { a.reg(tidx, reg, value.data(), uint32_t(value.size())); });
}

void IndexBuilder::reg_unknown(uint64_t tid, uint16_t reg) {
  auto& I = *impl_;
  if (reg >= I.arch->regs.size()) return;
  uint32_t tidx = I.thread_index(tid, I.in_step ? I.cur_pid : 1);
  if (I.in_step) {
    I.enc->reg_unknown(tidx, reg);
    I.summary->reg(reg);
  }
  if (reg == I.arch->pc_index) I.flush_pc(tidx);
  I.live_call([&](auto& a) { a.reg_unknown(tidx, reg); });
}

void IndexBuilder::mem_write(uint64_t pid, uint64_t addr, std::span<const uint8_t> bytes) {
  auto& I = *impl_;
  if (I.in_step) {
    I.enc->mem_write(pid, addr, bytes);
    I.summary->write(addr, bytes.size());
  }
  I.live_call([&](auto& a) { a.mem_write(pid, addr, bytes.data(), bytes.size()); });
}

void IndexBuilder::mem_read(uint64_t pid, uint64_t addr, uint32_t size, std::span<const uint8_t> bytes) {
  auto& I = *impl_;
  if (I.in_step) {
    I.enc->mem_read(pid, addr, size, bytes);
    I.summary->read(addr, size);
  }
  const uint8_t* value = bytes.size() == size && size ? bytes.data() : nullptr;
  if (!I.deferred)
    I.applier->mem_read(pid, addr, size, value);
  else if (value)
    I.effects.mem_write(pid, addr, value, size);  // what the applier does with a read's value
}

void IndexBuilder::mem_unknown(uint64_t pid, uint64_t addr, uint64_t size) {
  auto& I = *impl_;
  if (I.in_step) {
    I.enc->mem_unknown(pid, addr, size);
    I.summary->write(addr, size);
  }
  I.live_call([&](auto& a) { a.mem_unknown(pid, addr, size); });
}

void IndexBuilder::mem_map(uint64_t pid, uint64_t addr, uint64_t size, uint8_t prot, std::string_view raw_name) {
  auto& I = *impl_;
  std::string escaped;
  std::string_view name = raw_name;
  if (!is_valid_utf8(raw_name)) name = escaped = text_from_trace(raw_name);
  if (I.in_step) {
    I.enc->mem_map(pid, addr, size, prot, name);
    I.summary->write(addr, size);
  }
  I.live_call([&](auto& a) { a.mem_map(pid, addr, size, prot, name); });
}

void IndexBuilder::mem_unmap(uint64_t pid, uint64_t addr, uint64_t size) {
  auto& I = *impl_;
  if (I.in_step) {
    I.enc->mem_unmap(pid, addr, size);
    I.summary->write(addr, size);
  }
  I.live_call([&](auto& a) { a.mem_unmap(pid, addr, size); });
}

void IndexBuilder::mem_protect(uint64_t pid, uint64_t addr, uint64_t size, uint8_t prot) {
  auto& I = *impl_;
  if (I.in_step) I.enc->mem_protect(pid, addr, size, prot);
  I.live_call([&](auto& a) { a.mem_protect(pid, addr, size, prot); });
}

void IndexBuilder::thread_begin(uint64_t tid, uint64_t pid) {
  auto& I = *impl_;
  uint32_t tidx = I.thread_index(tid, pid);
  if (I.in_step) I.enc->thread_begin(tidx);
  I.live_call([&](auto& a) { a.thread_begin(tidx); });
}

void IndexBuilder::thread_end(uint64_t tid) {
  auto& I = *impl_;
  auto it = I.tidx_of.find(tid);
  if (it == I.tidx_of.end()) return;
  if (I.in_step) I.enc->thread_end(it->second);
  I.live_call([&](auto& a) { a.thread_end(it->second); });
}

void IndexBuilder::end() {
  auto& I = *impl_;
  I.commit_run();
  I.finish_step();
  I.close_chunk();
  if (I.chunks.empty()) {  // no steps: one empty chunk holds the initial state
    I.open_chunk();
    I.close_chunk();
  }
}

Result<std::unique_ptr<IndexFile>> IndexBuilder::finish(std::chrono::steady_clock::time_point started,
                                                        const std::function<Status()>& may_replace) {
  auto& I = *impl_;
  if (!I.arch) return make_error(I.path, "the trace reader produced no trace");
  if (I.chunk_open || I.chunks.empty()) end();
  I.stop_replay();
  I.meta.step_count = I.steps;
  I.meta.unique_pages = I.pages.tickets().size();
  I.flush_summaries();
  I.summary_filters.finish(*I.blobs);
  I.blobs->finish();
  I.meta.build_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (I.write_error.empty()) I.write_error = I.blobs->error();
  const std::vector<BlobRef>& refs = I.blobs->refs();
  for (size_t i = 0; i < I.chunks.size(); ++i) {
    I.chunks[i].stream = refs[I.chunk_tickets[i].stream];
    I.chunks[i].keyframe = refs[I.chunk_tickets[i].keyframe];
  }
  I.meta.mapped_files = mapped_files_at_build(I.out, I.tmp_fd, I.chunks, I.meta.info.arch);

  std::vector<BlobRef> page_refs, segment_refs, summary_refs;  // by page, segment and summary group id
  for (uint64_t t : I.pages.tickets()) page_refs.push_back(refs[t]);
  for (uint64_t t : I.segments.tickets()) segment_refs.push_back(refs[t]);
  for (uint64_t t : I.summary_group_tickets) summary_refs.push_back(refs[t]);
  std::vector<BlobRef> pc_filter_refs, access_filter_refs;  // by filter-table group
  I.summary_filters.group_refs(refs, pc_filter_refs, access_filter_refs);
  ByteWriter dir;
  uint64_t pos = I.blobs->end_offset();
  if (I.out && !write_index_tables(I.out, pos,
                                     {&I.meta, &I.chunks, &summary_refs, &page_refs, &segment_refs, &pc_filter_refs,
                                      &access_filter_refs},
                                     dir) &&
      I.write_error.empty())
    I.write_error = std::strerror(errno);

  IndexHeader h{};
  std::memcpy(h.magic, kIndexMagic, 8);
  h.version = kIndexVersion;
  h.chunk_steps = I.chunk_steps;
  h.source_size = I.stamp.size;
  h.source_mtime_ns = I.stamp.mtime_ns;
  h.source_identity = I.stamp.identity;
  h.source_content_hash = I.stamp.content_hash;
  h.source_path_hash = I.source_path_hash;
  h.dir_offset = pos;
  h.dir_size = dir.size();
  h.dir_checksum = XXH3_64bits(dir.data(), dir.size());
  h.header_checksum = XXH3_64bits(&h, offsetof(IndexHeader, header_checksum));

  if (!I.out) return make_error(I.path, I.write_error);
  bool ok = std::fwrite(dir.data(), 1, dir.size(), I.out) == dir.size();
  ok = ok && std::fseek(I.out, 0, SEEK_SET) == 0 && std::fwrite(&h, 1, sizeof h, I.out) == sizeof h;
  ok = ok && std::fflush(I.out) == 0;
  if (!ok && I.write_error.empty()) I.write_error = std::strerror(errno);
  std::fclose(I.out);
  I.out = nullptr;
  if (!I.write_error.empty()) return make_error(I.tmp_path, "writing the index failed: " + I.write_error);
  // Checked again at the last moment: the build may have taken minutes.
  if (may_replace)
    if (auto s = may_replace(); !s) return s.error();
  if (std::rename(I.tmp_path.c_str(), I.path.c_str()) != 0)
    return make_error(I.path, std::string("cannot move the index into place: ") + std::strerror(errno));
  I.finished = true;
  forget_temp_index(I.tmp_path);
  int fd = I.tmp_fd;
  I.tmp_fd = -1;
  return IndexFile::adopt(fd, I.path);
}

}  // namespace ttd
