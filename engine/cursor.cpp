#include "engine/cursor.h"

#include <algorithm>

#include "engine/blob_prefix.h"
#include "engine/index_file.h"
#include "engine/index_page_source.h"
#include "engine/keyframe_restorer.h"
#include "engine/page_cache.h"
#include "engine/state_apply.h"
#include "engine/step_codec.h"

namespace ttd {

struct Cursor::Impl {
  PageLoading loading = PageLoading::Lazy;
  const IndexFile* index = nullptr;
  PageCache* pages = nullptr;
  size_t chunk = SIZE_MAX;  // chunk whose stream the decoder is reading
  // That chunk's step stream, inflated only up to where the replay got: a
  // seek replays from the chunk's start to its target, on average half.
  BlobPrefixSource stream;
  std::string keyframe;       // decoded keyframe blob (capacity reused)
  // Chunks whose blobs stream and keyframe hold (SIZE_MAX: none). A seek back
  // within the chunk at hand (a reverse step) reads and inflates neither
  // again.
  size_t buf_chunk = SIZE_MAX, keyframe_chunk = SIZE_MAX;
  KeyframeRestorer restorer;
  std::unique_ptr<StepDecoder> dec;
  std::unique_ptr<StateApplier> applier;
  DecodedStep pending;       // header of the step at eid_
  bool has_pending = false;
  uint32_t last_tidx = 0;    // thread of the last applied step
  bool any_applied = false;
  const ArchDesc* arch = nullptr;
  // Points the decoder (made once, reset per chunk) at the stream.
  void start_stream();
  // Reads chunk c's stream (inflating none of it yet); false if corrupt.
  bool read_stream(size_t c);
  // The error for chunk c, with what was wrong in its stream if that was it.
  Error stream_error(const Trace& t, size_t c) const;
};

Cursor::Cursor(std::shared_ptr<const Trace> trace, PageLoading loading, Unpositioned)
    : trace_(std::move(trace)), impl_(new Impl) {
  impl_->loading = loading;
  impl_->index = &trace_->index();
  impl_->pages = &trace_->pages();
  impl_->arch = &trace_->arch();
  state_ = MachineState(trace_->arch());
}

Cursor::Cursor(std::shared_ptr<const Trace> trace, PageLoading loading)
    : Cursor(std::move(trace), loading, Unpositioned{}) {
  Status s = seek(0);
  (void)s;  // an empty or corrupt trace leaves an empty state; seek reports later
}

Result<Cursor> Cursor::at(std::shared_ptr<const Trace> trace, uint64_t eid, PageLoading loading) {
  Cursor c(std::move(trace), loading, Unpositioned{});
  if (Status s = c.seek(eid); !s) return s.error();
  return c;
}
Cursor::~Cursor() = default;
// Not defaulted: the applier writes into the state it was made for, which
// is this object's member; a moved cursor makes it again for its own.
Cursor::Cursor(Cursor&& o) noexcept
    : trace_(std::move(o.trace_)), eid_(o.eid_), state_(std::move(o.state_)), impl_(std::move(o.impl_)) {
  if (impl_ && impl_->applier) {
    impl_->applier = std::make_unique<StateApplier>(state_, impl_->index->thread_slots());
    impl_->applier->defer_pcs();
  }
}

uint64_t Cursor::current_tid() const {
  const auto& slots = impl_->index->thread_slots();
  if (impl_->has_pending && impl_->pending.tidx < slots.size()) return slots[impl_->pending.tidx].tid;
  if (impl_->any_applied && impl_->last_tidx < slots.size()) return slots[impl_->last_tidx].tid;
  if (!trace_->threads().empty()) return trace_->threads().back().tid;
  return 0;
}

std::optional<fmt::StepInfo> Cursor::current_step() const {
  if (!impl_->has_pending) return std::nullopt;
  const auto& slot = impl_->index->thread_slots()[impl_->pending.tidx];
  return fmt::StepInfo{slot.tid, slot.pid, impl_->pending.pc, impl_->pending.size, impl_->pending.kind};
}

namespace {
Error corrupt(const Trace& t, size_t chunk) {
  return t.index().chunk_error(chunk);
}

size_t resident_pages(const MachineState& st) {
  size_t n = 0;
  for (const auto& [pid, p] : st.processes()) n += p.memory.resident_page_count();
  return n;
}
}  // namespace

void Cursor::Impl::start_stream() {
  const uint8_t* data = stream.blob.data();
  if (!dec) dec = std::make_unique<StepDecoder>(*arch, data, 0);
  dec->reset(data, stream.blob.available(), &stream);
  dec->defer_registers(arch->pc_index);
}

bool Cursor::Impl::read_stream(size_t c) {
  buf_chunk = SIZE_MAX;
  if (!index->read_blob_prefix(index->chunk(c).stream, stream.blob)) return false;
  buf_chunk = c;
  return true;
}

Error Cursor::Impl::stream_error(const Trace& t, size_t c) const {
  // An inflate error shows only as the decoder stops: note it for chunk_error.
  if (const char* why = stream.blob.error(); why && buf_chunk == c)
    index->note_failure(index->chunk(c).stream.offset, why);
  return corrupt(t, c);
}

Status Cursor::replay_to(uint64_t target) {
  Impl& I = *impl_;
  const IndexFile& idx = *I.index;
  const auto& slots = idx.thread_slots();
  // Register writes wait in the decoder (StepDecoder::defer_registers),
  // the pcs in the applier (StateApplier::defer_pcs); they reach the state
  // on every way out, the error paths included.
  struct Flush {
    Impl& I;
    ~Flush() {
      if (I.dec && I.applier) I.dec->flush_registers(*I.applier);
      if (I.applier) I.applier->flush_pcs();
    }
  } flush{I};
  while (eid_ < target) {
    // The chunk's end, without a table look-up per step.
    const uint64_t chunk_end = std::min<uint64_t>(uint64_t(I.chunk + 1) * idx.chunk_steps(), idx.meta().step_count);
    const uint64_t until = std::min(target, chunk_end);
    // Past the last step of the trace's last chunk there is no header to read.
    const bool read_after_last = until < chunk_end;
    StepDecoder::ReplayDone done;
    const bool ok = until > eid_ && I.dec->replay(I.pending, until - eid_, read_after_last, *I.applier, slots, done);
    eid_ += done.steps;
    if (done.steps) {
      I.last_tidx = done.last_tidx;
      I.any_applied = true;
    }
    if (!ok) {
      // The decoder stopped mid-chunk: the next seek starts from a keyframe.
      Error e = I.stream_error(*trace_, I.chunk);
      I.has_pending = false;
      I.chunk = SIZE_MAX;
      return e;
    }
    if (eid_ == chunk_end) {
      I.has_pending = false;
      if (I.chunk + 1 >= idx.chunk_count()) break;  // end of trace
      // Continue into the next chunk with the same state (the decoder
      // starts over: chunk encodings are self-contained).
      I.dec->flush_registers(*I.applier);
      ++I.chunk;
      if (!I.read_stream(I.chunk)) return corrupt(*trace_, I.chunk);
      I.start_stream();
      if (!(I.has_pending = I.dec->next(I.pending)) || I.pending.tidx >= slots.size())
        return I.stream_error(*trace_, I.chunk);
    }
  }
  return {};
}

Status Cursor::seek(uint64_t target) {
  Impl& I = *impl_;
  const IndexFile& idx = *I.index;
  uint64_t count = idx.meta().step_count;
  if (target > count)
    return make_error("EID", std::to_string(target) + " is out of range (the trace has " + std::to_string(count) +
                                 " steps, EIDs 0.." + std::to_string(count) + ")");
  if (idx.chunk_count() == 0) return make_error(trace_->stats().index_path, "index has no chunks");
  size_t c = idx.chunk_of(target);
  const auto& slots = idx.thread_slots();
  // Replay forward from here when that is shorter than from the keyframe.
  bool continue_here = I.chunk != SIZE_MAX && eid_ <= target && I.chunk <= c &&
                       (I.chunk == c || target - eid_ < idx.chunk_steps());
  // Lazily, a restore keeps no page: it bounds what a cursor holds.
  if (continue_here && I.loading == PageLoading::Lazy && resident_pages(state_) > kMaxResidentPages)
    continue_here = false;
  state_.clear_memory_faults();
  if (!continue_here) {
    const ChunkEntry ch = idx.chunk(c);
    I.chunk = SIZE_MAX;  // until the restore succeeds
    if (I.keyframe_chunk != c) {
      I.keyframe_chunk = SIZE_MAX;
      if (!idx.read_blob(ch.keyframe, I.keyframe)) return corrupt(*trace_, c);
      I.keyframe_chunk = c;
    }
    const auto* kf = reinterpret_cast<const uint8_t*>(I.keyframe.data());
    const bool restored =
        I.loading == PageLoading::Lazy
            ? I.restorer.restore_lazy(kf, I.keyframe.size(), std::make_shared<IndexPageSource>(trace_, c), state_)
            : I.restorer.restore(kf, I.keyframe.size(), [&](uint64_t id) { return I.pages->get(id); },
                                 I.pages->segment_source(), state_);
    if (!restored) {
      I.keyframe_chunk = SIZE_MAX;
      return corrupt(*trace_, c);
    }
    if (I.buf_chunk != c && !I.read_stream(c)) return corrupt(*trace_, c);
    I.chunk = c;
    I.start_stream();
    I.applier = std::make_unique<StateApplier>(state_, slots);
    I.applier->defer_pcs();
    eid_ = ch.first_eid;
    I.has_pending = false;
    I.any_applied = false;
    if (ch.steps && !(I.has_pending = I.dec->next(I.pending))) return I.stream_error(*trace_, c);
    if (I.has_pending && I.pending.tidx >= slots.size()) return corrupt(*trace_, c);
  }
  if (Status s = replay_to(target); !s) return s;
  if (I.has_pending) I.applier->position(I.pending.tidx, I.pending.pc);
  // A page the replay wrote but could not read: its other bytes are
  // unknown, so the seek fails and the next one restores from a keyframe.
  if (auto fault = state_.memory_fault()) {
    I.chunk = SIZE_MAX;
    return *fault;
  }
  return {};
}

}  // namespace ttd
