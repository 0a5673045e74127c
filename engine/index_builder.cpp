#include "engine/index_builder.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "engine/index_builder_impl.h"
#include "engine/index_temp_files.h"
#include "engine/trace_text.h"

namespace ttd {

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
  if (size_t budget = page_budget_pages())
    impl_->page_lists.set_budget(budget, std::make_unique<PageSpillFile>(spill_dir_for(impl_->path)));
}

size_t IndexBuilder::page_budget_pages() {
  double mb = kDefaultPageBudgetMB;  // fractions allowed: tests budget a few pages
  if (const char* e = std::getenv("TTD_BUILD_PAGE_BUDGET_MB"); e && *e) mb = std::strtod(e, nullptr);
  if (!(mb > 0)) return 0;
  // A page costs its Page and the pool's block overhead.
  return std::max<size_t>(1, size_t(mb * double(1 << 20) / double(sizeof(Page) + 64)));
}

IndexBuilder::PageBudgetStats IndexBuilder::page_budget_stats() const {
  auto s = impl_->page_lists.eviction_stats();
  return {s.evicted, s.read_back, s.spill_slots};
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
  if (I.continue_run(s.tid, s.pc, s.size, s.kind)) [[likely]]
    return;
  step_general(s);
}

void IndexBuilder::steps(const fmt::StepBatch& b) {
  // step() and the effects' calls, step by step, without a virtual call
  // for each: the thread is the batch's, so an effect needs no thread look-up.
  auto& I = *impl_;
  const size_t nregs = I.arch->regs.size();
  const fmt::BatchEffect* e = b.effects();
  for (const fmt::BatchStep& s : b.steps()) {
    if (!I.continue_run(b.tid, s.pc, s.size, fmt::StepKind::Instruction)) [[unlikely]]
      step_general(fmt::StepInfo{b.tid, b.pid, s.pc, s.size, fmt::StepKind::Instruction});
    const uint32_t tidx = I.cur_tidx;
    for (const fmt::BatchEffect* end = b.effects() + s.effects_end; e != end; ++e) {
      switch (e->kind) {
        case fmt::BatchEffectKind::RegValue:
          if (e->reg < nregs) [[likely]]
            I.record_reg_value(tidx, e->reg, e->value, e->size);
          break;
        case fmt::BatchEffectKind::MemRead: I.record_mem_read(b.pid, e->addr, e->size, {}); break;
        case fmt::BatchEffectKind::MemWrite: I.record_mem_write(b.pid, e->addr, {b.bytes_of(*e), e->size}); break;
      }
    }
  }
}

void IndexBuilder::step_general(const fmt::StepInfo& s) {
  auto& I = *impl_;
  I.commit_run();
  I.finish_step();
  uint32_t tidx = I.thread_index(s.tid, s.pid);
  if (I.until_chunk == 0) {
    I.close_chunk();
    I.position_at_chunk_start(tidx, s.pc);
    if (I.deferred) I.send_job(true);
    I.open_chunk();
    I.until_chunk = I.chunk_steps;
  }
  I.start_step(tidx, I.slots[tidx].pid, s);
}

void IndexBuilder::attr(std::string_view key, const fmt::AttrValue& v) { impl_->record_attr(key, v); }

fmt::TraceSink::AttrKey IndexBuilder::attr_key(std::string_view key) { return impl_->attr_id(key); }

void IndexBuilder::attr_u64(AttrKey key, uint64_t v) { impl_->record_attr_u64(key, v); }

void IndexBuilder::attr_u64s(const AttrKey* keys, const uint64_t* values, size_t n) {
  impl_->record_attr_u64s(keys, values, n);
}

void IndexBuilder::reg(uint64_t tid, uint16_t reg, std::span<const uint8_t> value) {
  auto& I = *impl_;
  if (reg >= I.arch->regs.size()) return;
  I.record_reg(I.thread_index(tid, I.in_step ? I.cur_pid : 1), reg, value);
}

void IndexBuilder::reg_value(uint64_t tid, uint16_t reg, uint64_t value, uint32_t bytes) {
  auto& I = *impl_;
  if (reg >= I.arch->regs.size()) return;
  I.record_reg_value(I.thread_index(tid, I.in_step ? I.cur_pid : 1), reg, value, bytes);
}

void IndexBuilder::reg_unknown(uint64_t tid, uint16_t reg) {
  auto& I = *impl_;
  if (reg >= I.arch->regs.size()) return;
  I.record_reg_unknown(I.thread_index(tid, I.in_step ? I.cur_pid : 1), reg);
}

void IndexBuilder::mem_write(uint64_t pid, uint64_t addr, std::span<const uint8_t> bytes) {
  impl_->record_mem_write(pid, addr, bytes);
}

void IndexBuilder::mem_read(uint64_t pid, uint64_t addr, uint32_t size, std::span<const uint8_t> bytes) {
  impl_->record_mem_read(pid, addr, size, bytes);
}

void IndexBuilder::mem_unknown(uint64_t pid, uint64_t addr, uint64_t size) {
  impl_->record_mem_unknown(pid, addr, size);
}

void IndexBuilder::mem_map(uint64_t pid, uint64_t addr, uint64_t size, uint8_t prot, std::string_view raw_name) {
  impl_->record_mem_map(pid, addr, size, prot, raw_name);
}

void IndexBuilder::mem_unmap(uint64_t pid, uint64_t addr, uint64_t size) { impl_->record_mem_unmap(pid, addr, size); }

void IndexBuilder::mem_protect(uint64_t pid, uint64_t addr, uint64_t size, uint8_t prot) {
  impl_->record_mem_protect(pid, addr, size, prot);
}

void IndexBuilder::thread_begin(uint64_t tid, uint64_t pid) {
  auto& I = *impl_;
  I.record_thread_begin(I.thread_index(tid, pid));
}

void IndexBuilder::thread_end(uint64_t tid) {
  auto& I = *impl_;
  auto it = I.tidx_of.find(tid);
  if (it == I.tidx_of.end()) return;
  I.record_thread_end(it->second);
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

}  // namespace ttd
