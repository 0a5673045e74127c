#include "formats/umtrace/thread_table.h"

#include "formats/umtrace/itable_header.h"
#include "formats/umtrace/umtrace_layout.h"

namespace ttd::fmt::umtrace {

Result<std::vector<ThreadRecord>> read_thread_table(const std::string& path) {
  using L = ThreadLayout;
  auto opened = MappedFile::open(path);
  if (!opened) return opened.error();
  const MappedFile& f = **opened;
  auto h = read_itable_header(f, {L::kSize, 0, false});
  if (!h) return h.error();
  std::vector<ThreadRecord> out;
  out.reserve(h->row_count);
  for (uint64_t i = 0; i < h->row_count; ++i) {
    const uint64_t row = h->row_offset(i);
    const uint8_t* r = f.data() + row;
    const int32_t self = load_le_i32(r + L::kID);
    if (self != int64_t(i))
      return f.error_at(row, "thread " + std::to_string(i) + " says it is thread " + std::to_string(self));
    ThreadRecord t;
    t.win_tid = load_le32(r + L::kWinTID);
    t.tib = load_le64(r + L::kTIBAddr);
    t.first_eid = load_le_i64(r + L::kFirstEID);
    t.last_eid = load_le_i64(r + L::kLastEID);
    t.record_count = load_le64(r + L::kRecCount);
    out.push_back(t);
  }
  return out;
}

}  // namespace ttd::fmt::umtrace
