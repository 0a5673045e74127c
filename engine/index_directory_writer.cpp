#include "engine/index_directory_writer.h"

#include "engine/index_meta_json.h"

namespace ttd {

namespace {

void write_list(ByteWriter& w, const std::vector<uint64_t>& v) {
  w.var(v.size());
  uint64_t prev = 0;
  for (uint64_t x : v) {
    w.var(x - prev);
    prev = x;
  }
}
void write_ref(ByteWriter& w, const BlobRef& b) {
  w.var(b.offset);
  w.var(b.size);
  w.var(b.raw_size);
}

}  // namespace

void write_index_directory(ByteWriter& dir, const IndexMeta& meta, const std::vector<ChunkEntry>& chunks,
                           const std::vector<BlobRef>& pages, const std::vector<BlobRef>& segments) {
  // Sized once: doubling a directory of tens of MB copies it several times.
  size_t listed = 0;
  for (const auto& c : chunks) {
    const ChunkSummary& m = c.summary;
    listed += m.pcs.size() + m.pages_read.size() + m.pages_written.size() + m.threads.size() + 2 * m.lines_read.size() +
              2 * m.lines_written.size() + m.pages_read_coarse.size() + m.pages_written_coarse.size();
  }
  dir.reserve(listed * 3 + chunks.size() * 96 + (pages.size() + segments.size()) * 12 + 4096);
  dir.str(meta_to_json(meta));
  dir.var(chunks.size());
  for (const auto& c : chunks) {
    dir.var(c.steps);
    write_ref(dir, c.stream);
    write_ref(dir, c.keyframe);
    write_list(dir, c.summary.pcs);
    write_list(dir, c.summary.pages_read);
    write_list(dir, c.summary.pages_written);
    std::vector<uint64_t> t(c.summary.threads.begin(), c.summary.threads.end());
    write_list(dir, t);
    write_list(dir, c.summary.lines_read);
    dir.bytes(c.summary.line_slots_read.data(), c.summary.line_slots_read.size());
    write_list(dir, c.summary.lines_written);
    dir.bytes(c.summary.line_slots_written.data(), c.summary.line_slots_written.size());
    write_list(dir, c.summary.pages_read_coarse);
    write_list(dir, c.summary.pages_written_coarse);
    for (uint64_t w : c.summary.regs_written) dir.fixed64(w);
  }
  for (const auto* table : {&pages, &segments}) {
    dir.var(table->size());
    for (const BlobRef& r : *table) write_ref(dir, r);
  }
}

}  // namespace ttd
