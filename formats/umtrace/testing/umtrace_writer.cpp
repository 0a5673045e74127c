#include "formats/umtrace/testing/umtrace_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "formats/umtrace/mapped_file.h"

namespace ttd::fmt::umtrace {

namespace {

constexpr size_t kFileBuffer = size_t(4) << 20;
constexpr size_t kPrevNextBuffer = 1 << 16;  // pairs kept before going to disk

bool is_stack_memory_name(const std::string& n) {
  std::string l(n);
  for (char& c : l) c = char(std::tolower(uint8_t(c)));
  return l == "stackpush" || l == "stackpop";
}

}  // namespace

Result<std::unique_ptr<UmtraceWriter>> UmtraceWriter::create(const std::string& dir, ContextMapSpec map,
                                                             WriterOptions options) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return make_error(dir, "cannot create the trace directory: " + ec.message());
  if (map.regs.size() > ContextMapLayout::kEntries) return make_error(dir, "context map has more than 512 registers");
  std::unique_ptr<UmtraceWriter> w(new UmtraceWriter());
  w->dir_ = dir;
  w->map_ = std::move(map);
  w->opt_ = std::move(options);
  w->ins_ = InstructionTableEncoder(w->opt_.ins_record_version);
  const std::string vt = table_path(dir, kExecVtable), of = table_path(dir, kExecOffsets);
  w->vtable_ = std::fopen(vt.c_str(), "wb");
  if (!w->vtable_) return make_error(vt, std::string("cannot create: ") + std::strerror(errno));
  w->offsets_ = std::fopen(of.c_str(), "wb");
  if (!w->offsets_) return make_error(of, std::string("cannot create: ") + std::strerror(errno));
  std::setvbuf(w->vtable_, nullptr, _IOFBF, kFileBuffer);
  std::setvbuf(w->offsets_, nullptr, _IOFBF, kFileBuffer);
  const std::string pn = table_path(dir, kExecPrevNext);
  if (w->opt_.write_prev_next) {
    w->prev_next_fd_ = ::open(pn.c_str(), O_CREAT | O_TRUNC | O_RDWR | O_CLOEXEC, 0644);
    if (w->prev_next_fd_ < 0) return make_error(pn, std::string("cannot create: ") + std::strerror(errno));
  } else {
    std::remove(pn.c_str());
  }
  uint8_t header[ExecLayout::kHeaderSize] = {};
  store_le32(header + ExecLayout::kVersion, w->opt_.exec_version);
  std::fwrite(header, 1, sizeof header, w->vtable_);
  w->vtable_pos_ = sizeof header;
  return w;
}

UmtraceWriter::~UmtraceWriter() {
  if (vtable_) std::fclose(vtable_);
  if (offsets_) std::fclose(offsets_);
  if (prev_next_fd_ >= 0) ::close(prev_next_fd_);
}

uint32_t UmtraceWriter::add_thread(const ThreadSpec& t) {
  threads_.push_back(ThreadRow{t, -1, -1, 0});
  thread_last_.push_back(-1);
  thread_ended_.push_back(false);
  return uint32_t(threads_.size() - 1);
}

int32_t UmtraceWriter::add_module(const ModuleSpec& m) {
  modules_.push_back(m);
  return int32_t(modules_.size() - 1);
}

uint64_t UmtraceWriter::add_instruction(const InstructionSpec& ins) {
  const uint64_t id = ins_.add(ins);
  if (id == memory_slots_.size()) {
    std::vector<MemorySlot> mem;
    for (const LcSlotSpec& s : ins.decoded.slots) {
      const bool named_stack = s.reg < map_.regs.size() && is_stack_memory_name(map_.regs[s.reg].name);
      if (s.addr_width == 0 && s.reg != kRegMem0 && s.reg != kRegMem1 && !named_stack) continue;
      const uint32_t w = s.addr_width ? s.addr_width : 8;
      mem.push_back({s.offset, s.value_size, w >= 8 ? ~0ull : (1ull << (8 * w)) - 1});
    }
    memory_slots_.push_back(std::move(mem));
  }
  return id;
}

uint64_t UmtraceWriter::add_syscall(const SyscallSpec& s) {
  syscalls_.push_back(s);
  return syscalls_.size() - 1;
}

void UmtraceWriter::note_pages(uint64_t addr, uint64_t size) {
  if (size == 0) return;
  const uint64_t first = addr >> 12, last = (addr + size - 1) >> 12;
  if (first == last && first == last_page_) return;
  for (uint64_t p = first; p <= last; ++p) pages_.insert(p);
  last_page_ = last;
}

Result<uint64_t> UmtraceWriter::append(uint32_t thread, uint8_t type, uint8_t flags, std::span<const uint8_t> head,
                                       const ContextSpec* ctx) {
  if (finished_) return make_error(dir_, "record appended after finish()");
  if (thread >= threads_.size()) return make_error(dir_, "record for thread " + std::to_string(thread) + ", which was never added");
  scratch_.assign(ExecLayout::kRecordHeader, 0);
  store_le32(scratch_.data() + ExecLayout::kThreadID, thread);
  scratch_[ExecLayout::kType] = type;
  scratch_[ExecLayout::kFlags] = flags;
  scratch_.insert(scratch_.end(), head.begin(), head.end());
  if (ctx) {
    using L = ContextLayout;
    if (ctx->registers.size() != map_.dump_size)
      return make_error(dir_, "context dump of " + std::to_string(ctx->registers.size()) + " bytes; the map says " +
                                  std::to_string(map_.dump_size));
    const size_t base = scratch_.size();
    const uint64_t regs_fp = L::kMemRefs + L::kMemRefSize * ctx->memory.size();
    scratch_.resize(base + regs_fp, 0);
    store_le32(scratch_.data() + base + L::kMemCount, uint32_t(ctx->memory.size()));
    store_le64(scratch_.data() + base + L::kRegsFP, regs_fp);
    scratch_.insert(scratch_.end(), ctx->registers.begin(), ctx->registers.end());
    for (size_t i = 0; i < ctx->memory.size(); ++i) {
      const ContextMemSpec& m = ctx->memory[i];
      uint8_t* ref = scratch_.data() + base + L::kMemRefs + L::kMemRefSize * i;
      store_le64(ref + L::kMemAddress, m.address);
      store_le64(ref + L::kMemSize, m.bytes.size());
      store_le64(ref + L::kMemDataFP, scratch_.size() - base);
      scratch_.insert(scratch_.end(), m.bytes.begin(), m.bytes.end());
      note_pages(m.address, m.bytes.size());
    }
  }
  const uint64_t eid = records_++;
  std::fwrite(&vtable_pos_, 8, 1, offsets_);
  std::fwrite(scratch_.data(), 1, scratch_.size(), vtable_);
  vtable_pos_ += scratch_.size();

  ThreadRow& row = threads_[thread];
  if (row.first_eid < 0) row.first_eid = int64_t(eid);
  ++row.records;
  if (type == uint8_t(ExecType::ThreadEnd)) thread_ended_[thread] = true;
  const int64_t prev = thread_last_[thread];
  thread_last_[thread] = int64_t(eid);
  if (prev_next_fd_ >= 0) {
    pn_buffer_.push_back(prev);
    pn_buffer_.push_back(-1);
    if (prev >= 0) {
      if (uint64_t(prev) >= pn_first_) {
        pn_buffer_[(uint64_t(prev) - pn_first_) * 2 + 1] = int64_t(eid);
      } else if (::pwrite(prev_next_fd_, &eid, 8, off_t(uint64_t(prev) * 16 + 8)) != 8) {
        return make_error(table_path(dir_, kExecPrevNext), std::string("write failed: ") + std::strerror(errno));
      }
    }
    if (pn_buffer_.size() >= 2 * kPrevNextBuffer)
      if (auto s = flush_prev_next(); !s) return s.error();
  }
  if (std::ferror(vtable_) || std::ferror(offsets_))
    return make_error(table_path(dir_, kExecVtable), std::string("write failed: ") + std::strerror(errno));
  return eid;
}

Status UmtraceWriter::flush_prev_next() {
  const size_t bytes = pn_buffer_.size() * 8;
  if (bytes && ::pwrite(prev_next_fd_, pn_buffer_.data(), bytes, off_t(pn_first_ * 16)) != ssize_t(bytes))
    return make_error(table_path(dir_, kExecPrevNext), std::string("write failed: ") + std::strerror(errno));
  pn_first_ += pn_buffer_.size() / 2;
  pn_buffer_.clear();
  return {};
}

Result<uint64_t> UmtraceWriter::instruction(uint32_t thread, uint8_t flags, uint64_t ins_id,
                                            std::span<const uint8_t> lc) {
  if (ins_id >= ins_.count()) return make_error(dir_, "instruction " + std::to_string(ins_id) + " was never added");
  const InstructionSpec& ins = ins_.get(ins_id);
  if (lc.size() != ins.decoded.lc_size)
    return make_error(dir_, "local context of " + std::to_string(lc.size()) + " bytes for instruction " +
                                std::to_string(ins_id) + ", whose decoded form says " +
                                std::to_string(ins.decoded.lc_size));
  for (const MemorySlot& m : memory_slots_[ins_id]) note_pages(load_le64(lc.data() + m.lc_offset) & m.mask, m.size);
  uint8_t head[8];
  store_le64(head, ins_id);
  scratch_lc_.assign(head, head + 8);
  scratch_lc_.insert(scratch_lc_.end(), lc.begin(), lc.end());
  return append(thread, uint8_t(ExecType::Instruction), flags, scratch_lc_, nullptr);
}

Result<uint64_t> UmtraceWriter::thread_begin(uint32_t thread, uint8_t flags, const ContextSpec& ctx) {
  return append(thread, uint8_t(ExecType::ThreadBegin), flags, {}, &ctx);
}

Result<uint64_t> UmtraceWriter::thread_end(uint32_t thread, uint8_t flags, int32_t exit_code) {
  uint8_t d[4];
  store_le32(d, uint32_t(exit_code));
  return append(thread, uint8_t(ExecType::ThreadEnd), flags, d, nullptr);
}

Result<uint64_t> UmtraceWriter::app_end(uint32_t thread, uint8_t flags, int32_t exit_code) {
  uint8_t d[4];
  store_le32(d, uint32_t(exit_code));
  return append(thread, uint8_t(ExecType::AppEnd), flags, d, nullptr);
}

Result<uint64_t> UmtraceWriter::syscall_entry(uint32_t thread, uint8_t flags, uint64_t syscall_id,
                                              const ContextSpec& ctx) {
  uint8_t d[8];
  store_le64(d, syscall_id);
  return append(thread, uint8_t(ExecType::SyscallEntry), flags, d, &ctx);
}

Result<uint64_t> UmtraceWriter::syscall_exit(uint32_t thread, uint8_t flags, int64_t syscall_id,
                                             const ContextSpec& ctx) {
  uint8_t d[8];
  store_le64(d, uint64_t(syscall_id));
  return append(thread, uint8_t(ExecType::SyscallExit), flags, d, &ctx);
}

Result<uint64_t> UmtraceWriter::skipped_syscall_exit(uint32_t thread, uint8_t flags, uint64_t syscall_id) {
  uint8_t d[8];
  store_le64(d, syscall_id);
  return append(thread, uint8_t(ExecType::SkippedSyscallExit), flags, d, nullptr);
}

Result<uint64_t> UmtraceWriter::context_change(uint32_t thread, uint8_t flags, ExecType reason, const ContextSpec& ctx) {
  return append(thread, uint8_t(reason), flags, {}, &ctx);
}

Result<uint64_t> UmtraceWriter::raw_record(uint32_t thread, uint8_t type, uint8_t flags, std::span<const uint8_t> data) {
  return append(thread, type, flags, data, nullptr);
}

Status UmtraceWriter::write_file(const char* name, const void* data, size_t size) const {
  const std::string p = table_path(dir_, name);
  std::FILE* f = std::fopen(p.c_str(), "wb");
  if (!f) return make_error(p, std::string("cannot create: ") + std::strerror(errno));
  const bool ok = std::fwrite(data, 1, size, f) == size;
  if (std::fclose(f) != 0 || !ok) return make_error(p, std::string("write failed: ") + std::strerror(errno));
  return {};
}

Status UmtraceWriter::finish() {
  if (finished_) return {};
  finished_ = true;
  // The execution table: the record count, the final offset, the column.
  std::fwrite(&vtable_pos_, 8, 1, offsets_);
  std::fflush(vtable_);
  uint8_t count[8];
  store_le64(count, records_);
  const bool ok_v = std::fseek(vtable_, ExecLayout::kRecordCount, SEEK_SET) == 0 && std::fwrite(count, 1, 8, vtable_) == 8;
  const bool closed_v = std::fclose(vtable_) == 0, closed_o = std::fclose(offsets_) == 0;
  vtable_ = offsets_ = nullptr;
  if (!ok_v || !closed_v || !closed_o)
    return make_error(table_path(dir_, kExecVtable), std::string("write failed: ") + std::strerror(errno));
  if (prev_next_fd_ >= 0) {
    if (auto s = flush_prev_next(); !s) return s;
    ::close(prev_next_fd_);
    prev_next_fd_ = -1;
  }

  for (size_t t = 0; t < threads_.size(); ++t) threads_[t].last_eid = thread_ended_[t] ? thread_last_[t] : -1;
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  for (uint64_t p : pages_) {
    if (!ranges.empty() && ranges.back().second + 1 == (p << 12)) ranges.back().second = (p << 12) + 0xfff;
    else ranges.push_back({p << 12, (p << 12) + 0xfff});
  }
  const std::vector<uint8_t> ins = ins_.encode(), map = encode_context_map(map_), mods = encode_module_table(modules_),
                             thr = encode_thread_table(threads_), as = encode_address_space(ranges);
  const auto [sv, so] = encode_syscall_tables(syscalls_, opt_.unified_ids_version);
  const std::string xml = encode_trace_xml(opt_.xml);
  for (auto [name, bytes] : {std::pair{kInsTable, &ins}, {kContextMap, &map}, {kModuleTable, &mods},
                             {kThreadTable, &thr}, {kAddressSpace, &as}, {kSyscallVtable, &sv},
                             {kSyscallOffsets, &so}})
    if (auto s = write_file(name, bytes->data(), bytes->size()); !s) return s;
  return write_file(kTraceXml, xml.data(), xml.size());
}

}  // namespace ttd::fmt::umtrace
