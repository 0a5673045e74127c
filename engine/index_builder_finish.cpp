// IndexBuilder::finish(): stops the replay thread, writes the tables,
// the directory and the header, and moves the index into place.
#include <xxhash.h>

#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstring>

#include "engine/index_builder_impl.h"
#include "engine/index_temp_files.h"
#include "engine/mapped_files_at_build.h"

namespace ttd {

Result<std::unique_ptr<IndexFile>> IndexBuilder::finish(std::chrono::steady_clock::time_point started,
                                                        const std::function<Status()>& may_replace) {
  auto& I = *impl_;
  if (!I.arch) return make_error(I.path, "the trace reader produced no trace");
  if (I.chunk_open || I.chunks.empty()) end();
  I.stop_replay();
  // A spill that failed left pages unknown: the index would be wrong.
  if (!I.page_lists.error().empty() && I.write_error.empty()) I.write_error = I.page_lists.error();
  I.meta.step_count = I.next_eid;
  I.meta.unique_pages = I.pages.tickets().size();
  I.flush_summaries();
  I.summary_filters.finish(*I.blobs);
  I.blobs->finish();
  I.meta.build_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (I.write_error.empty()) I.write_error = I.blobs->error();
  const std::vector<BlobRef>& refs = I.blobs->refs();
  for (size_t i = 0; i < I.chunks.size(); ++i) {
    I.chunks[i].stream = refs[I.chunk_tickets[i].stream];
    I.chunks[i].keyframe = refs[I.chunk_tickets[i].keyframe];
  }
  I.meta.mapped_files = mapped_files_at_build(I.out, I.tmp_fd, I.chunks, I.meta.info.arch);

  std::vector<BlobRef> page_refs, segment_refs, summary_refs;  // by page, segment and summary group id
  for (uint64_t t : I.pages.tickets()) page_refs.push_back(refs[t]);
  for (uint64_t t : I.segments.tickets()) segment_refs.push_back(refs[t]);
  for (uint64_t t : I.summary_group_tickets) summary_refs.push_back(refs[t]);
  std::vector<BlobRef> pc_filter_refs, access_filter_refs;  // by filter-table group
  I.summary_filters.group_refs(refs, pc_filter_refs, access_filter_refs);
  ByteWriter dir;
  uint64_t pos = I.blobs->end_offset();
  if (I.out && !write_index_tables(I.out, pos,
                                     {&I.meta, &I.chunks, &summary_refs, &page_refs, &segment_refs, &pc_filter_refs,
                                      &access_filter_refs},
                                     dir) &&
      I.write_error.empty())
    I.write_error = std::strerror(errno);

  IndexHeader h{};
  std::memcpy(h.magic, kIndexMagic, 8);
  h.version = kIndexVersion;
  h.chunk_steps = I.chunk_steps;
  h.source_size = I.stamp.size;
  h.source_mtime_ns = I.stamp.mtime_ns;
  h.source_identity = I.stamp.identity;
  h.source_content_hash = I.stamp.content_hash;
  h.source_path_hash = I.source_path_hash;
  h.dir_offset = pos;
  h.dir_size = dir.size();
  h.dir_checksum = XXH3_64bits(dir.data(), dir.size());
  h.header_checksum = XXH3_64bits(&h, offsetof(IndexHeader, header_checksum));

  if (!I.out) return make_error(I.path, I.write_error);
  bool ok = std::fwrite(dir.data(), 1, dir.size(), I.out) == dir.size();
  ok = ok && std::fseek(I.out, 0, SEEK_SET) == 0 && std::fwrite(&h, 1, sizeof h, I.out) == sizeof h;
  ok = ok && std::fflush(I.out) == 0;
  if (!ok && I.write_error.empty()) I.write_error = std::strerror(errno);
  std::fclose(I.out);
  I.out = nullptr;
  if (!I.write_error.empty()) return make_error(I.tmp_path, "writing the index failed: " + I.write_error);
  // Checked again at the last moment: the build may have taken minutes.
  if (may_replace)
    if (auto s = may_replace(); !s) return s.error();
  if (std::rename(I.tmp_path.c_str(), I.path.c_str()) != 0)
    return make_error(I.path, std::string("cannot move the index into place: ") + std::strerror(errno));
  I.finished = true;
  forget_temp_index(I.tmp_path);
  int fd = I.tmp_fd;
  I.tmp_fd = -1;
  return IndexFile::adopt(fd, I.path);
}

}  // namespace ttd
