#include "formats/umtrace/exec_table.h"

#include "formats/umtrace/umtrace_layout.h"

namespace ttd::fmt::umtrace {

Result<std::unique_ptr<ExecTable>> ExecTable::open(const std::string& dir) {
  using L = ExecLayout;
  std::unique_ptr<ExecTable> t(new ExecTable());
  auto v = MappedFile::open(table_path(dir, kExecVtable));
  if (!v) return v.error();
  auto o = MappedFile::open(table_path(dir, kExecOffsets));
  if (!o) return o.error();
  t->vtable_ = std::move(*v);
  t->offsets_ = std::move(*o);
  const MappedFile& f = *t->vtable_;
  if (!f.contains(0, L::kHeaderSize))
    return f.error_at(f.size(), "file is " + std::to_string(f.size()) + " bytes, shorter than its 16-byte header");
  const int32_t version = ld_i32(f.data() + L::kVersion);
  if (version != 0 && version != 1)
    return f.error_at(L::kVersion, "execution table version " + std::to_string(version) + " (this reader knows 0 and 1)");
  t->version_ = uint32_t(version);
  const int64_t count = ld_i64(f.data() + L::kRecordCount);
  const uint64_t offset_entries = t->offsets_->size() / 8;
  if (count < 0 || offset_entries == 0 || uint64_t(count) > offset_entries - 1)
    return f.error_at(L::kRecordCount, std::to_string(count) + " records need " +
                                           (count < 0 ? std::string("a non-negative count")
                                                      : std::to_string(uint64_t(count) + 1) + " offsets") +
                                           ", but " + t->offsets_->path() + " holds " + std::to_string(offset_entries));
  t->count_ = uint64_t(count);
  const std::string pn = table_path(dir, kExecPrevNext);
  if (file_exists(pn)) {
    auto p = MappedFile::open(pn);
    if (!p) return p.error();
    if ((*p)->size() / 16 < t->count_)
      return (*p)->error_at((*p)->size(), "holds " + std::to_string((*p)->size() / 16) + " prev/next pairs for " +
                                              std::to_string(t->count_) + " records");
    t->prev_next_ = std::move(*p);
    t->prev_next_->advise_sequential();
  }
  t->vtable_->advise_sequential();
  t->offsets_->advise_sequential();
  return t;
}

Status ExecTable::read(uint64_t eid, ExecRecord& out) const {
  using L = ExecLayout;
  if (eid >= count_) return make_error(vtable_->path(), "record " + std::to_string(eid) + " does not exist");
  const uint8_t* o = offsets_->data() + eid * 8;
  const uint64_t begin = ld_u64(o), end = ld_u64(o + 8);
  const uint64_t size = vtable_->size();
  if (begin < L::kHeaderSize || begin > size)
    return offsets_->error_at(eid * 8, "record " + std::to_string(eid) + " starts at byte " + std::to_string(int64_t(begin)) +
                                           ", outside the " + std::to_string(size) + "-byte " + kExecVtable);
  if (end > size)
    return offsets_->error_at(eid * 8 + 8, "record " + std::to_string(eid) + " ends at byte " + std::to_string(int64_t(end)) +
                                               ", past the end of the " + std::to_string(size) + "-byte " + kExecVtable);
  if (end < begin || end - begin < L::kRecordHeader)
    return vtable_->error_at(begin, "record " + std::to_string(eid) + " is " + std::to_string(int64_t(end - begin)) +
                                        " bytes, shorter than its 6-byte header (offsets must increase)");
  const uint8_t* r = vtable_->data() + begin;
  out.eid = eid;
  out.offset = begin;
  out.thread = ld_u32(r + L::kThreadID);
  out.type = r[L::kType];
  out.flags = r[L::kFlags];
  out.data = r + L::kRecordHeader;
  out.data_size = end - begin - L::kRecordHeader;
  if (prev_next_) {
    const uint8_t* pn = prev_next_->data() + eid * 16;
    out.prev = ld_i64(pn);
    out.next = ld_i64(pn + 8);
    out.has_prev_next = true;
  }
  return {};
}

void ExecTable::release_before(uint64_t eid) const {
  if (eid <= released_eid_ || eid > count_) return;
  const uint64_t from = ld_u64(offsets_->data() + released_eid_ * 8), to = ld_u64(offsets_->data() + eid * 8);
  if (to > from) vtable_->release(from, to);
  offsets_->release(released_eid_ * 8, eid * 8);
  if (prev_next_) prev_next_->release(released_eid_ * 16, eid * 16);
  released_eid_ = eid;
}

}  // namespace ttd::fmt::umtrace
