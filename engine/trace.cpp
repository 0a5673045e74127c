#include "engine/trace.h"

#include <unistd.h>
#include <xxhash.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>

#include "engine/index_builder.h"
#include "engine/index_file.h"
#include "engine/page_cache.h"
#include "engine/program_image.h"
#include "engine/step_codec.h"

namespace ttd {

namespace fs = std::filesystem;

namespace {

// Next to the trace when its folder is writable, else in the cache folder.
std::string index_path_for(const std::string& trace, const OpenOptions& o) {
  if (!o.index_path.empty()) return o.index_path;
  fs::path p = fs::absolute(trace);
  std::string beside = p.string() + ".ttdidx";
  fs::path dir = p.parent_path();
  if (o.cache_dir.empty() && ::access(dir.c_str(), W_OK) == 0) return beside;
  std::string cache = o.cache_dir;
  if (cache.empty()) {
    const char* xdg = std::getenv("XDG_CACHE_HOME");
    const char* home = std::getenv("HOME");
    cache = xdg && *xdg ? std::string(xdg) + "/ttd" : std::string(home ? home : "/tmp") + "/.cache/ttd";
  }
  std::error_code ec;
  fs::create_directories(cache, ec);
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", (unsigned long long)XXH3_64bits(p.c_str(), p.string().size()));
  return cache + "/" + p.filename().string() + "-" + hex + ".ttdidx";
}

Result<std::unique_ptr<IndexFile>> build_index(const std::string& trace, const std::string& index_path,
                                               const SourceStamp& stamp, const OpenOptions& o) {
  auto reader = o.reader_factory ? o.reader_factory() : fmt::open_trace(trace, o.reader, o.format);
  if (!reader) return reader.error();
  auto t0 = std::chrono::steady_clock::now();
  IndexBuilder builder(index_path, stamp, o.keyframe_interval);
  if (auto s = (*reader)->read(builder, o.progress); !s) return s.error();
  builder.end();
  return builder.finish(t0);
}

}  // namespace

Trace::~Trace() = default;

Result<std::shared_ptr<Trace>> Trace::open(const std::string& path, const OpenOptions& opts) {
  auto stamp = stamp_source(path);
  if (!stamp) return stamp.error();
  std::string ipath = index_path_for(path, opts);
  std::unique_ptr<IndexFile> index;
  bool reused = false;
  std::string stale_reason;
  if (!opts.rebuild) {
    auto f = IndexFile::open(ipath, *stamp);
    if (f) {
      index = std::move(*f);
      reused = true;
    } else {
      stale_reason = f.error().to_string();
    }
  }
  if (!index) {
    auto built = build_index(path, ipath, *stamp, opts);
    if (!built) return built.error();
    index = std::move(*built);
  }
  std::shared_ptr<Trace> t(new Trace());
  t->path_ = path;
  t->info_ = index->meta().info;
  t->threads_ = index->meta().threads;
  t->stats_.steps = index->meta().step_count;
  t->stats_.chunks = index->chunks().size();
  t->stats_.keyframes = index->chunks().size();
  t->stats_.unique_pages = index->meta().unique_pages;
  t->stats_.index_bytes = index->file_size();
  t->stats_.source_bytes = stamp->size;
  t->stats_.build_seconds = reused ? 0 : index->meta().build_seconds;
  t->stats_.reused = reused;
  t->stats_.index_path = ipath;
  auto program = choose_program_image(opts.program, t->info_.exec_path, t->info_.arch, *index, t->info_.caps.code_bytes);
  if (!program) return program.error();
  t->program_ = std::move(program->image);
  t->code_source_ = std::move(program->source);
  t->pages_ = std::make_unique<PageCache>(*index);
  t->index_ = std::move(index);
  return t;
}

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
  const auto& slots = index_->thread_slots();
  std::string buf;
  RecordCollector rc;
  std::vector<std::pair<uint32_t, fmt::AttrValue>> attrs;
  for (size_t c = index_->chunk_of(from); c < index_->chunks().size() && from < to; ++c) {
    const ChunkEntry& ch = index_->chunks()[c];
    if (!index_->read_blob(ch.stream, buf)) return make_error(stats_.index_path, "corrupt chunk " + std::to_string(c));
    StepDecoder dec(arch(), reinterpret_cast<const uint8_t*>(buf.data()), buf.size());
    DecodedStep ds;
    for (uint64_t eid = ch.first_eid; eid < ch.first_eid + ch.steps; ++eid) {
      if (!dec.next(ds)) return make_error(stats_.index_path, "corrupt chunk " + std::to_string(c));
      StepRecord rec;
      rc.rec = &rec;
      uint64_t pid = ds.tidx < slots.size() ? slots[ds.tidx].pid : 0;
      if (!dec.effects(ds, rc, pid)) return make_error(stats_.index_path, "corrupt chunk " + std::to_string(c));
      if (eid < from) continue;
      if (eid >= to) return {};
      rec.eid = eid;
      rec.info = fmt::StepInfo{slots[ds.tidx].tid, pid, ds.pc, ds.size, ds.kind};
      attrs.clear();
      dec.attrs(ds, attrs);
      for (auto& [k, v] : attrs)
        rec.attrs.emplace_back(k < index_->meta().attr_keys.size() ? index_->meta().attr_keys[k] : "?", std::move(v));
      if (!fn(rec)) return {};
      from = eid + 1;
    }
  }
  return {};
}

}  // namespace ttd
