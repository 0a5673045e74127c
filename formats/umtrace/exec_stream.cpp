#include "formats/umtrace/exec_stream.h"

#include "formats/umtrace/umtrace_layout.h"

namespace ttd::fmt::umtrace {

namespace {
constexpr size_t kVtableWindow = size_t(1) << 20;
const char* const kExpected = "a table file of the Pin tool's trace";
}  // namespace

Result<ExecStream> ExecStream::open(const ExecTable& table) {
  auto v = FileWindow::open(table_path(table.dir(), kExecVtable), kVtableWindow, kExpected);
  if (!v) return v.error();
  auto o = FileWindow::open(table_path(table.dir(), kExecOffsets), size_t(256) << 10, kExpected);
  if (!o) return o.error();
  ExecStream s(std::move(*v), std::move(*o));
  s.count_ = table.count();
  if (table.has_prev_next()) {
    auto p = FileWindow::open(table_path(table.dir(), kExecPrevNext), size_t(512) << 10, kExpected);
    if (!p) return p.error();
    s.prev_next_ = std::move(*p);
  }
  // The files may have changed since ExecTable checked their sizes.
  if (s.offsets_.file_size() / 8 < s.count_ + 1 || (s.prev_next_ && s.prev_next_->file_size() / 16 < s.count_))
    return make_error(s.offsets_.path(), "the execution table changed while it was being read");
  return s;
}

Result<bool> ExecStream::next(ExecRecord& out) {
  if (eid_ >= count_) return false;
  auto o = offsets_.view(eid_ * 8, 16);
  if (!o) return o.error();
  const uint64_t begin = load_le64(*o), end = load_le64(*o + 8);
  if (auto s = check_record_extent(eid_, begin, end, vtable_.file_size(), vtable_.path(), offsets_.path()); !s)
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
