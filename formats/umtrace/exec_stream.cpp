#include "formats/umtrace/exec_stream.h"

#include "formats/umtrace/umtrace_layout.h"

namespace ttd::fmt::umtrace {

Result<ExecStream> ExecStream::open(const ExecTable& table) {
  auto v = SequentialFile::open(table_path(table.dir(), kExecVtable));
  if (!v) return v.error();
  auto o = SequentialFile::open(table_path(table.dir(), kExecOffsets), size_t(256) << 10);
  if (!o) return o.error();
  ExecStream s(std::move(*v), std::move(*o));
  s.count_ = table.count();
  if (table.has_prev_next()) {
    auto p = SequentialFile::open(table_path(table.dir(), kExecPrevNext), size_t(512) << 10);
    if (!p) return p.error();
    s.prev_next_ = std::move(*p);
  }
  // The files may have changed since ExecTable checked their sizes.
  if (s.offsets_.size() / 8 < s.count_ + 1 || (s.prev_next_ && s.prev_next_->size() / 16 < s.count_))
    return make_error(s.offsets_.path(), "the execution table changed while it was being read");
  return s;
}

Result<bool> ExecStream::next(ExecRecord& out) {
  if (eid_ >= count_) return false;
  auto o = offsets_.view(eid_ * 8, 16);
  if (!o) return o.error();
  const uint64_t begin = load_le64(*o), end = load_le64(*o + 8);
  if (auto s = check_record_extent(eid_, begin, end, vtable_.size(), vtable_.path(), offsets_.path()); !s)
    return s.error();
  auto r = vtable_.view(begin, end - begin);
  if (!r) return r.error();
  fill_record(eid_, begin, *r, end - begin, out);
  if (prev_next_) {
    auto pn = prev_next_->view(eid_ * 16, 16);
    if (!pn) return pn.error();
    out.prev = load_le_i64(*pn);
    out.next = load_le_i64(*pn + 8);
    out.has_prev_next = true;
  }
  ++eid_;
  return true;
}

}  // namespace ttd::fmt::umtrace
