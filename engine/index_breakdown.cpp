#include "engine/index_breakdown.h"

#include <fcntl.h>
#include <unistd.h>

#include "engine/index_file.h"
#include "engine/segment_codec.h"
#include "engine/trace.h"
#include "state/paged_memory.h"

namespace ttd {

namespace {
void add(IndexBytes& b, const BlobRef& r) {
  ++b.count;
  b.stored += r.size;
  b.raw += r.raw_size;
}
}  // namespace

Result<std::vector<IndexBytes>> index_breakdown(const Trace& trace) {
  const IndexFile& index = trace.index();
  IndexBytes streams{"step streams"}, keyframes{"keyframes"}, whole{"pages whole"}, deltas{"page deltas"},
      segments{"page-map segments"}, segment_deltas{"segment deltas"}, summaries{"summary groups"}, rest{"header, tables, directory"};
  for (size_t c = 0; c < index.chunk_count(); ++c) {
    const ChunkEntry e = index.chunk(c);
    if (e.stream.size == 0 && e.keyframe.size == 0 && e.steps != 0) return index.chunk_error(c);
    add(streams, e.stream);
    add(keyframes, e.keyframe);
  }
  BlobRef r;
  for (uint64_t id = 0; id < index.page_count(); ++id) {
    if (!index.page_ref(id, r)) return make_error(index.path(), "page table entry " + std::to_string(id) + " is unreadable");
    add(r.raw_size == sizeof(Page) ? whole : deltas, r);
  }
  for (uint64_t id = 0; id < index.segment_count(); ++id) {
    if (!index.segment_ref(id, r))
      return make_error(index.path(), "segment table entry " + std::to_string(id) + " is unreadable");
    // Whole or delta is in the blob's first byte (engine/segment_codec.h).
    std::string raw;
    SegmentHead head;
    if (!index.read_blob(r, raw) ||
        parse_segment_head(reinterpret_cast<const uint8_t*>(raw.data()), raw.size(), id, head))
      return make_error_at(index.path(), r.offset, "page-map segment " + std::to_string(id) + " is unreadable");
    add(head.delta ? segment_deltas : segments, r);
  }
  // Summary groups are found through their group index.
  const TablePlace& sp = index.table(IndexTable::Summaries);
  int fd = ::open(index.path().c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return make_error(index.path(), "cannot reopen the index to read its summary group index");
  for (uint64_t g = 0; g < sp.groups; ++g) {
    GroupRecord rec;
    const uint64_t at = sp.index_offset + g * sizeof rec;
    if (::pread(fd, &rec, sizeof rec, off_t(at)) != ssize_t(sizeof rec) ||
        group_record_check(rec, IndexTable::Summaries, g) != rec.check) {
      ::close(fd);
      return make_error_at(index.path(), at, "summary group record " + std::to_string(g) + " is unreadable");
    }
    add(summaries, rec.ref());
  }
  ::close(fd);
  std::vector<IndexBytes> out{streams, keyframes, whole, deltas, segments, segment_deltas, summaries};
  uint64_t accounted = 0;
  for (const IndexBytes& b : out) accounted += b.stored;
  rest.count = 1;
  rest.stored = rest.raw = index.file_size() > accounted ? index.file_size() - accounted : 0;
  out.push_back(rest);
  return out;
}

}  // namespace ttd
