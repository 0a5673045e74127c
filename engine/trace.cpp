#include "engine/trace.h"

#include "engine/chunk_steps.h"

#include <atomic>
#include <chrono>
#include <filesystem>
#include <optional>
#include <system_error>
#include <thread>

#include "engine/chunk_steps.h"
#include "engine/index_builder.h"
#include "engine/index_file.h"
#include "engine/index_location.h"
#include "engine/index_temp_files.h"
#include "engine/parallel_index_build.h"
#include "engine/page_cache.h"
#include "engine/program_image.h"
#include "engine/step_codec.h"
#include "state/host_cpus.h"

namespace ttd {

namespace fs = std::filesystem;

namespace {

Error complete_without_builder(Error e, std::atomic<bool>& cancel, std::thread& hasher) {
  cancel = true;
  if (hasher.joinable()) hasher.join();
  return e;
}

// Builds the index. The whole-trace hash (SourceStamp::content_hash) is
// computed on a second thread while the reader runs. On one CPU it is not
// computed at all (0): it would cost a one-core build about 10 % (0.5 s
// per 2 GB from the page cache, docs/design.md), and without it a copy of
// the trace is rebuilt instead of verified, never wrongly trusted.
Result<std::unique_ptr<IndexFile>> build_index(const std::string& trace, const std::string& index_path,
                                               const SourceStamp& stamp, uint64_t path_hash, const OpenOptions& o,
                                               const std::function<Status()>& may_replace) {
  auto open_reader = [&] { return o.reader_factory ? o.reader_factory() : fmt::open_trace(trace, o.reader, o.format); };
  auto reader = open_reader();
  if (!reader) return reader.error();
  auto t0 = std::chrono::steady_clock::now();
  std::atomic<bool> cancel{false};
  std::optional<Result<uint64_t>> content;
  std::thread hasher;
  if (usable_cpus() > 1) {
    try {
      hasher = std::thread([&] { content.emplace(hash_source_content(trace, &cancel)); });
    } catch (const std::system_error&) {
      // No thread: the index is built without the hash.
    }
  }
  auto complete = [&](IndexBuilder& builder, const Status& read) -> Result<std::unique_ptr<IndexFile>> {
    if (!read) cancel = true;
    if (hasher.joinable()) hasher.join();
    if (!read) return read.error();
    if (content && !*content) return content->error();
    if (content) builder.set_source_content_hash(**content);
    builder.end();
    return builder.finish(t0, may_replace);
  };
  // Parsed by several threads when the format can cut the trace into
  // segments; anything that stops that (engine/parallel_index_build.h)
  // builds it again in order.
  if (const unsigned workers = parse_workers()) {
    if (auto segmented = (*reader)->segments(uint64_t(o.keyframe_interval) * kSegmentChunks)) {
      {
        IndexBuilder builder(index_path, stamp, path_hash, o.keyframe_interval);
        if (build_from_segments(*segmented, builder, workers, o.progress)) return complete(builder, {});
      }
      segmented.reset();
      reader = open_reader();
      if (!reader) return complete_without_builder(reader.error(), cancel, hasher);
    }
  }
  IndexBuilder builder(index_path, stamp, path_hash, o.keyframe_interval);
  return complete(builder, (*reader)->read(builder, o.progress));
}

// The index beside the trace, in the cache, or the explicit one; when the
// trace's folder is read-only a valid index beside it is opened at once
// (`found`).
std::string choose_index_path(const std::string& path, const OpenOptions& o, const SourceStamp& stamp,
                              const IndexFile::ContentHash& content, std::unique_ptr<IndexFile>& found) {
  if (!o.index_path.empty()) return o.index_path;
  std::string beside = index_path_beside(path);
  std::string folder = fs::path(beside).parent_path().string();
  bool writable = o.folder_writable ? o.folder_writable(folder) : folder_writable(folder);
  if (o.cache_dir.empty() && writable) return beside;
  if (!writable && !o.rebuild) {
    if (auto f = IndexFile::open(beside, stamp, content)) {
      found = std::move(*f);
      return beside;
    }
  }
  return index_path_in_cache(path, o.cache_dir);
}

}  // namespace

Status check_open_options(const OpenOptions& o) {
  if (o.keyframe_interval < kMinKeyframeInterval || o.keyframe_interval > kMaxKeyframeInterval)
    return make_error("keyframe_interval", std::to_string(o.keyframe_interval) + " is out of range " +
                                               std::to_string(kMinKeyframeInterval) + ".." +
                                               std::to_string(kMaxKeyframeInterval));
  return {};
}

Trace::~Trace() = default;

Result<std::shared_ptr<Trace>> Trace::open(const std::string& path, const OpenOptions& opts) {
  if (auto s = check_open_options(opts); !s) return s.error();
  auto stamp = stamp_source(path);
  if (!stamp) return stamp.error();
  const uint64_t path_hash = trace_path_hash(path);
  IndexFile::ContentHash content = [&path] { return hash_source_content(path); };
  std::unique_ptr<IndexFile> index;
  std::string ipath = choose_index_path(path, opts, *stamp, content, index);
  bool reused = index != nullptr;
  if (!index) {
    remove_abandoned_temp_indexes(ipath);
    if (!opts.rebuild) {
      if (auto f = IndexFile::open(ipath, *stamp, content)) {
        index = std::move(*f);
        reused = true;
      }
    }
  }
  if (!index) {
    const bool explicit_path = !opts.index_path.empty();
    auto may_replace = [&] { return check_index_replaceable(ipath, path_hash, explicit_path); };
    if (auto s = may_replace(); !s) return s.error();
    auto built = build_index(path, ipath, *stamp, path_hash, opts, may_replace);
    if (!built) {
      // The old index (stale, or valid before --rebuild) must not be
      // reused as if nothing had happened.
      if (may_replace()) discard_index(ipath);
      return built.error();
    }
    index = std::move(*built);
  }
  std::shared_ptr<Trace> t(new Trace());
  t->path_ = path;
  t->info_ = index->meta().info;
  t->threads_ = index->meta().threads;
  t->stats_.steps = index->meta().step_count;
  t->stats_.chunks = index->chunk_count();
  t->stats_.keyframes = index->chunk_count();
  t->stats_.unique_pages = index->meta().unique_pages;
  t->stats_.index_bytes = index->file_size();
  t->stats_.source_bytes = stamp->size;
  t->stats_.build_seconds = reused ? 0 : index->meta().build_seconds;
  t->stats_.reused = reused;
  t->stats_.index_path = ipath;
  if (!opts.program.empty()) {
    auto program = choose_program_image(opts.program, t->info_.exec_path, t->info_.arch, *index, t->info_.caps.code_bytes);
    if (!program) return program.error();
    std::call_once(t->program_once_, [&] {
      t->program_ = std::move(program->image);
      t->code_source_ = std::move(program->source);
    });
  }
  t->pages_ = std::make_unique<PageCache>(*index);
  t->symbolizer_ = std::make_unique<Symbolizer>(index.get(), t->info_.arch, opts.symbol_files,
                                                opts.program.empty() ? t->info_.exec_path : opts.program);
  t->index_ = std::move(index);
  return t;
}

void Trace::choose_program() const {
  std::call_once(program_once_, [this] {
    // Without an explicit path the choice never fails: a program that does
    // not fit is not used.
    auto program = choose_program_image("", info_.exec_path, info_.arch, *index_, info_.caps.code_bytes);
    if (!program) return;
    program_ = std::move(program->image);
    code_source_ = std::move(program->source);
  });
}

const ProgramImage* Trace::program() const {
  choose_program();
  return program_.get();
}

const std::string& Trace::code_source() const {
  choose_program();
  return code_source_;
}

Status Trace::verify_index() const { return index_->verify(); }

uint64_t Trace::step_count() const { return index_->meta().step_count; }
uint32_t Trace::chunk_steps() const { return index_->chunk_steps(); }

namespace {
// Collects a step's effects into a StepRecord.
struct RecordCollector : EffectVisitor {
  StepRecord* rec = nullptr;
  void reg(uint32_t, uint16_t reg, const uint8_t* v, uint32_t len) override {
    rec->regs.push_back({reg, std::vector<uint8_t>(v, v + len)});
  }
  void mem_write(uint64_t, uint64_t addr, const uint8_t* b, uint64_t len) override {
    rec->mem.push_back({addr, uint32_t(len), true, std::vector<uint8_t>(b, b + len)});
  }
  void mem_read(uint64_t, uint64_t addr, uint64_t size, const uint8_t* b) override {
    rec->mem.push_back({addr, uint32_t(size), false, b ? std::vector<uint8_t>(b, b + size) : std::vector<uint8_t>()});
  }
};
}  // namespace

Status Trace::for_each_step(uint64_t from, uint64_t to, const std::function<bool(const StepRecord&)>& fn) const {
  uint64_t count = step_count();
  if (from > count) return make_error("--from", "EID " + std::to_string(from) + " is past the end (" + std::to_string(count) + " steps)");
  to = std::min(to, count);
  // Through the one chunk decoder, which also refuses a step naming a
  // thread the index does not list.
  ChunkSteps reader(*this, DamagedSummary::Decode);
  RecordCollector rc;
  std::vector<std::pair<uint32_t, fmt::AttrValue>> attrs;
  for (size_t c = index_->chunk_of(from); c < index_->chunk_count() && from < to; ++c) {
    if (Status st = reader.load(c); !st) return st;
    const ChunkEntry ch = index_->chunk(c);
    for (uint64_t eid = ch.first_eid; eid < ch.first_eid + ch.steps; ++eid) {
      if (!reader.next()) return reader.status().ok() ? corrupt_chunk(*this, c) : reader.status();
      StepRecord rec;
      rc.rec = &rec;
      // Effects are delta-coded along the chunk: decode those of the steps
      // before `from` too.
      if (!reader.effects(rc)) return reader.status();
      if (eid < from) continue;
      if (eid >= to) return {};
      const ChunkStep& st = reader.step();
      rec.eid = eid;
      rec.info = fmt::StepInfo{st.tid, st.pid, st.pc, st.size, st.kind};
      reader.attrs(attrs);
      for (auto& [k, v] : attrs)
        rec.attrs.emplace_back(k < index_->meta().attr_keys.size() ? index_->meta().attr_keys[k] : "?", std::move(v));
      if (!fn(rec)) return {};
      from = eid + 1;
    }
  }
  return {};
}

}  // namespace ttd
