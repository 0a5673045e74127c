#include "formats/umtrace/exec_table.h"

#include "formats/umtrace/umtrace_layout.h"

namespace ttd::fmt::umtrace {

Result<std::unique_ptr<ExecTable>> ExecTable::open(const std::string& dir) {
  using L = ExecLayout;
  std::unique_ptr<ExecTable> t(new ExecTable());
  t->dir_ = dir;
  auto v = MappedFile::open(table_path(dir, kExecVtable));
  if (!v) return v.error();
  auto o = MappedFile::open(table_path(dir, kExecOffsets));
  if (!o) return o.error();
  t->vtable_ = std::move(*v);
  t->offsets_ = std::move(*o);
  const MappedFile& f = *t->vtable_;
  if (!f.contains(0, L::kHeaderSize))
    return f.error_at(f.size(), "file is " + std::to_string(f.size()) + " bytes, shorter than its 16-byte header");
  const int32_t version = load_le_i32(f.data() + L::kVersion);
  if (version != 0 && version != 1)
    return f.error_at(L::kVersion, "execution table version " + std::to_string(version) + " (this reader knows 0 and 1)");
  t->version_ = uint32_t(version);
  const int64_t count = load_le_i64(f.data() + L::kRecordCount);
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
  }
  return t;
}

Status record_extent_error(uint64_t eid, uint64_t begin, uint64_t end, uint64_t vtable_size,
                           const std::string& vtable_path, const std::string& offsets_path) {
  using L = ExecLayout;
  if (begin < L::kHeaderSize || begin > vtable_size)
    return make_error_at(offsets_path, eid * 8,
                         "record " + std::to_string(eid) + " starts at byte " + std::to_string(int64_t(begin)) +
                             ", outside the " + std::to_string(vtable_size) + "-byte " + kExecVtable);
  if (end > vtable_size)
    return make_error_at(offsets_path, eid * 8 + 8,
                         "record " + std::to_string(eid) + " ends at byte " + std::to_string(int64_t(end)) +
                             ", past the end of the " + std::to_string(vtable_size) + "-byte " + kExecVtable);
  if (end < begin || end - begin < L::kRecordHeader)
    return make_error_at(vtable_path, begin,
                         "record " + std::to_string(eid) + " is " + std::to_string(int64_t(end - begin)) +
                             " bytes, shorter than its 6-byte header (offsets must increase)");
  return {};
}

void fill_record(uint64_t eid, uint64_t begin, const uint8_t* r, uint64_t size, ExecRecord& out) {
  using L = ExecLayout;
  out.eid = eid;
  out.offset = begin;
  out.thread = load_le32(r + L::kThreadID);
  out.type = r[L::kType];
  out.flags = r[L::kFlags];
  out.data = r + L::kRecordHeader;
  out.data_size = size - L::kRecordHeader;
}

Status ExecTable::read(uint64_t eid, ExecRecord& out) const {
  if (eid >= count_) return make_error(vtable_->path(), "record " + std::to_string(eid) + " does not exist");
  const uint8_t* o = offsets_->data() + eid * 8;
  const uint64_t begin = load_le64(o), end = load_le64(o + 8);
  if (auto s = check_record_extent(eid, begin, end, vtable_->size(), vtable_->path(), offsets_->path()); !s) return s;
  fill_record(eid, begin, vtable_->data() + begin, end - begin, out);
  if (prev_next_) {
    const uint8_t* pn = prev_next_->data() + eid * 16;
    out.prev = load_le_i64(pn);
    out.next = load_le_i64(pn + 8);
    out.has_prev_next = true;
  }
  return {};
}

}  // namespace ttd::fmt::umtrace
