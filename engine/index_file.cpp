#include "engine/index_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "engine/blob_prefix.h"
#include "engine/blob_reader.h"
#include "engine/byte_codec.h"
#include "engine/index_meta_json.h"
#include "engine/page_cache.h"
#include "engine/page_delta_codec.h"
#include "engine/segment_codec.h"

namespace ttd {

namespace {

// The last failed read of this thread, for chunk_error(): readers report
// a bare false, and the error is built where the chunk number is known.
struct ReadFailure {
  uint64_t offset = 0;
  std::string what;
};
thread_local ReadFailure last_failure;
bool fail_at(uint64_t offset, std::string what) {
  last_failure = {offset, std::move(what)};
  return false;
}

// Bounds of the group caches (groups, not bytes): a chunk group is about
// 1024 x 40 bytes, a page or segment group 1024 x 20, a summary group 32
// summaries of up to a few KB.
// A filter group is 64 summary groups' filters, a few KB each.
// Chunk groups: 512 (up to 29 MB decoded) hold the whole chunk table of a
// trace of 1.6 G steps, so seeks all over a long trace stop decoding a
// 1024-entry group for nearly every seek (64 covered 200 M steps).
constexpr size_t kCachedChunkGroups = 512, kCachedSummaryGroups = 64, kCachedRefGroups = 64, kCachedFilterGroups = 16;
}  // namespace

IndexFile::IndexFile()
    : chunk_groups_(kCachedChunkGroups),
      summary_groups_(kCachedSummaryGroups),
      ref_groups_{IndexGroupCache<BlobRef>(kCachedRefGroups), IndexGroupCache<BlobRef>(kCachedRefGroups)},
      pc_filters_(kCachedFilterGroups),
      access_filters_(kCachedFilterGroups) {
  auto bad = std::make_shared<ChunkSummary>();
  bad->corrupt = true;
  for (auto& w : bad->regs_written) w = ~uint64_t(0);
  corrupt_summary_ = std::move(bad);
}

IndexFile::~IndexFile() {
  if (fd_ >= 0) ::close(fd_);
}

Result<std::unique_ptr<IndexFile>> IndexFile::open(const std::string& path, const SourceStamp& now,
                                                   const ContentHash& content_hash) {
  // Blobs are read with pread rather than through a mapping: a seek then
  // costs a few small reads, and the process's RSS stays its own working
  // set instead of growing to the whole index as seeks touch it.
  // O_NONBLOCK: opening a FIFO must not wait for a writer (it is refused).
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return make_error(path, "no index yet");
  IndexHeader h;
  {
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
      ::close(fd);
      return make_error(path, "the index is not a regular file");
    }
    if (uint64_t(st.st_size) < kIndexHeaderSize || !pread_all(fd, &h, sizeof h, 0)) {
      ::close(fd);
      return make_error_at(path, 0, "index file too short");
    }
  }
  SourceStamp recorded{h.source_size, h.source_mtime_ns, h.source_identity, h.source_content_hash};
  auto f = open_fd(fd, path);  // header and head checked
  if (!f) return f.error();
  switch (judge_freshness(recorded, now)) {
    case Freshness::Fresh:
      break;
    case Freshness::Stale:
      return make_error(path, "index is stale: the trace changed since it was built");
    case Freshness::ContentCheckNeeded: {
      // Same size and mtime, another file or a changed ctime: a copy, or
      // an edit with its mtime put back. Only the content can tell.
      if (!content_hash) return make_error(path, "index is stale: the trace's identity changed");
      auto got = content_hash();
      if (!got) return got.error();
      if (*got != h.source_content_hash)
        return make_error(path, "index is stale: the trace's content changed (same size and mtime)");
      break;
    }
  }
  return f;
}

Result<std::unique_ptr<IndexFile>> IndexFile::adopt(int fd, const std::string& path) { return open_fd(fd, path); }

Result<std::unique_ptr<IndexFile>> IndexFile::open_fd(int fd, const std::string& path) {
  std::unique_ptr<IndexFile> f(new IndexFile());
  f->fd_ = fd;
  f->path_ = path;
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return make_error(path, "the index is not a regular file");
  uint64_t size = uint64_t(st.st_size);
  if (size < kIndexHeaderSize) return make_error_at(path, 0, "index file too short");
  f->size_ = size;
  IndexHeader h;
  if (!pread_all(fd, &h, sizeof h, 0)) return make_error_at(path, 0, "cannot read the index header");
  if (std::memcmp(h.magic, kIndexMagic, 8) != 0) return make_error_at(path, 0, "not a ttd index (bad magic)");
  // The version before the checksum: an older header has another size.
  if (h.version != kIndexVersion)
    return make_error_at(path, 8, "index version " + std::to_string(h.version) + ", this ttd writes " +
                                      std::to_string(kIndexVersion));
  if (XXH3_64bits(&h, offsetof(IndexHeader, header_checksum)) != h.header_checksum)
    return make_error_at(path, 0, "index header checksum mismatch");
  if (h.dir_offset < kIndexHeaderSize || h.dir_offset > size || h.dir_size > size - h.dir_offset)
    return make_error_at(path, offsetof(IndexHeader, dir_offset), "index directory out of bounds");
  if (h.chunk_steps == 0) return make_error_at(path, offsetof(IndexHeader, chunk_steps), "index chunk size is 0");
  // The head holds the metadata JSON (threads, attribute keys) and a few
  // numbers; it does not grow with chunks or pages.
  constexpr uint64_t kMaxHead = uint64_t(64) << 20;
  if (h.dir_size > kMaxHead) return make_error_at(path, h.dir_offset, "index directory head larger than 64 MiB");
  std::vector<uint8_t> dir(h.dir_size);
  if (!pread_all(fd, dir.data(), dir.size(), h.dir_offset) || XXH3_64bits(dir.data(), dir.size()) != h.dir_checksum)
    return make_error_at(path, h.dir_offset, "index directory checksum mismatch");
  f->chunk_steps_ = h.chunk_steps;
  if (auto s = f->parse_head(dir.data(), dir.size()); !s) return s.error();
  return f;
}

Status IndexFile::parse_head(const uint8_t* p, size_t n) {
  ByteReader r(p, n);
  std::string json = r.str();
  if (!r.ok() || !meta_from_json(json, meta_)) return make_error(path_, "index metadata is malformed");
  for (size_t t = 0; t < kIndexTables; ++t) {
    TablePlace& tp = tables_[t];
    tp.entries = r.var();
    tp.group_entries = uint32_t(r.var());
    tp.groups = r.var();
    tp.index_offset = r.var();
    const char* name = table_name(IndexTable(t));
    if (!r.ok() || tp.group_entries == 0 || tp.group_entries > (1u << 20))
      return make_error(path_, std::string("index ") + name + " is malformed");
    if (tp.groups != (tp.entries + tp.group_entries - 1) / tp.group_entries || tp.groups > size_ / 32 ||
        tp.index_offset < kIndexHeaderSize || tp.index_offset > size_ || tp.groups * 32 > size_ - tp.index_offset)
      return make_error_at(path_, tp.index_offset, std::string("index ") + name + " does not fit the file");
  }
  if (tables_[1].entries != tables_[0].entries) return make_error(path_, "index summary table does not match the chunks");
  for (IndexTable t : {IndexTable::PcFilters, IndexTable::AccessFilters})
    if (tables_[size_t(t)].entries != tables_[1].groups)
      return make_error(path_, std::string("index ") + table_name(t) + " does not match the summary groups");
  // Every chunk holds chunk_steps steps but the last; an empty trace has
  // one empty chunk (the initial state).
  uint64_t want = std::max<uint64_t>(1, (meta_.step_count + chunk_steps_ - 1) / chunk_steps_);
  if (tables_[0].entries != want) return make_error(path_, "index chunk table does not add up to the step count");
  for (auto& t : meta_.threads) slots_.push_back(ThreadSlot{t.tid, t.pid});
  return {};
}

bool IndexFile::read_blob(const BlobRef& ref, std::string& out) const {
  if (ref.offset == 0 && ref.size == 0 && ref.raw_size == 0 && ref.checksum == 0)
    return false;  // left empty by a corrupt table group, whose failure is noted
  if (ref.offset < kIndexHeaderSize || ref.offset > size_ || ref.size > size_ - ref.offset)
    return fail_at(ref.offset, "blob of " + std::to_string(ref.size) + " bytes outside the file");
  // One buffer per thread: cursors of several clients read concurrently.
  thread_local std::string buffer;
  if (const char* why = read_stored_blob(fd_, ref, buffer, out)) return fail_at(ref.offset, why);
  return true;
}

bool IndexFile::read_blob_prefix(const BlobRef& ref, BlobPrefix& out) const {
  if (ref.offset == 0 && ref.size == 0 && ref.raw_size == 0 && ref.checksum == 0) return false;  // as read_blob
  if (ref.offset < kIndexHeaderSize || ref.offset > size_ || ref.size > size_ - ref.offset)
    return fail_at(ref.offset, "blob of " + std::to_string(ref.size) + " bytes outside the file");
  if (const char* why = out.open(fd_, ref)) return fail_at(ref.offset, why);
  return true;
}

bool IndexFile::read_group(IndexTable t, uint64_t g, std::string& raw) const {
  const TablePlace& tp = tables_[size_t(t)];
  const uint64_t at = tp.index_offset + g * sizeof(GroupRecord);
  GroupRecord rec;
  if (g >= tp.groups || !pread_all(fd_, &rec, sizeof rec, at))
    return fail_at(at, std::string("cannot read the ") + table_name(t) + " group index");
  if (group_record_check(rec, t, g) != rec.check)
    return fail_at(at, std::string(table_name(t)) + " group " + std::to_string(g) + ": record checksum mismatch");
  return read_blob(rec.ref(), raw);
}

bool IndexFile::decode_chunk_group(uint64_t g, std::vector<ChunkBlobs>& v, size_t last) const {
  std::string raw;
  if (!read_group(IndexTable::Chunks, g, raw)) return false;
  const TablePlace& tp = tables_[0];
  v.resize(tp.entries_in(g));
  // Entries after `last` are not decoded (their bytes passed the group's
  // checksum all the same): the symbolizer's scan wants one entry a group.
  const size_t n = std::min(v.size(), last == SIZE_MAX ? SIZE_MAX : last + 1);
  ByteReader r(reinterpret_cast<const uint8_t*>(raw.data()), raw.size());
  uint64_t c = g * tp.group_entries;
  for (size_t i = 0; i < n; ++i, ++c) {
    ChunkBlobs& e = v[i];
    e.steps = uint32_t(r.var());
    uint64_t first = c * chunk_steps_;
    uint64_t want = std::min<uint64_t>(chunk_steps_, meta_.step_count - std::min(first, meta_.step_count));
    if (!decode_ref(r, e.stream) || !decode_ref(r, e.keyframe) || e.steps != want)
      return fail_at(0, "chunk table group " + std::to_string(g) + " is malformed");
  }
  if (n == v.size() && !r.at_end()) return fail_at(0, "chunk table group " + std::to_string(g) + " is malformed");
  return true;
}

std::shared_ptr<const std::vector<ChunkBlobs>> IndexFile::chunk_group(uint64_t g) const {
  if (auto hit = chunk_groups_.find(g)) return hit;
  auto v = std::make_shared<std::vector<ChunkBlobs>>();
  if (!decode_chunk_group(g, *v)) return nullptr;
  chunk_groups_.add(g, v);
  return v;
}

std::shared_ptr<const std::vector<ChunkSummary>> IndexFile::summary_group(uint64_t g) const {
  if (auto hit = summary_groups_.find(g)) return hit;
  std::string raw;
  if (!read_group(IndexTable::Summaries, g, raw)) return nullptr;
  auto v = std::make_shared<std::vector<ChunkSummary>>(tables_[1].entries_in(g));
  ByteReader r(reinterpret_cast<const uint8_t*>(raw.data()), raw.size());
  for (auto& s : *v)
    if (!decode_summary(r, s, slots_.size())) break;
  if (!r.ok() || !r.at_end()) return fail_at(0, "chunk summary group " + std::to_string(g) + " is malformed"), nullptr;
  summary_groups_.add(g, v);
  return v;
}

std::shared_ptr<const std::vector<BlobRef>> IndexFile::ref_group(IndexTable t, uint64_t g) const {
  IndexGroupCache<BlobRef>& cache = ref_groups_[t == IndexTable::Pages ? 0 : 1];
  if (auto hit = cache.find(g)) return hit;
  std::string raw;
  if (!read_group(t, g, raw)) return nullptr;
  auto v = std::make_shared<std::vector<BlobRef>>(tables_[size_t(t)].entries_in(g));
  ByteReader r(reinterpret_cast<const uint8_t*>(raw.data()), raw.size());
  for (auto& e : *v)
    if (!decode_ref(r, e)) break;
  if (!r.ok() || !r.at_end())
    return fail_at(0, std::string(table_name(t)) + " group " + std::to_string(g) + " is malformed"), nullptr;
  cache.add(g, v);
  return v;
}

template <class Filter, class Decode>
std::shared_ptr<const Filter> IndexFile::filter(IndexTable t, IndexGroupCache<Filter>& cache, uint64_t entry,
                                                Decode decode) const {
  const TablePlace& tp = tables_[size_t(t)];
  if (entry >= tp.entries) return nullptr;
  const uint64_t g = entry / tp.group_entries;
  auto group = cache.find(g);
  if (!group) {
    std::string raw;
    if (!read_group(t, g, raw)) return nullptr;
    auto v = std::make_shared<std::vector<Filter>>(tp.entries_in(g));
    ByteReader r(reinterpret_cast<const uint8_t*>(raw.data()), raw.size());
    for (size_t i = 0; i < v->size(); ++i)
      if (!decode(r, (*v)[i], g * tp.group_entries + i)) break;
    if (!r.ok() || !r.at_end())
      return fail_at(0, std::string(table_name(t)) + " group " + std::to_string(g) + " is malformed"), nullptr;
    cache.add(g, v);
    group = std::move(v);
  }
  return std::shared_ptr<const Filter>(group, &(*group)[entry % tp.group_entries]);
}

std::shared_ptr<const GroupPcFilter> IndexFile::pc_filter(uint64_t g) const {
  return filter(IndexTable::PcFilters, pc_filters_, g, decode_pc_filter);
}

std::shared_ptr<const GroupAccessFilter> IndexFile::access_filter(uint64_t g) const {
  return filter(IndexTable::AccessFilters, access_filters_, g, decode_access_filter);
}

ChunkEntry IndexFile::chunk(size_t c) const {
  if (c >= chunk_count()) return chunk_entry(c, nullptr);
  const uint64_t ge = tables_[0].group_entries;
  auto g = chunk_group(c / ge);
  return chunk_entry(c, g ? &(*g)[c % ge] : nullptr);
}

ChunkEntry IndexFile::chunk_passing(size_t c) const {
  const uint64_t ge = tables_[0].group_entries;
  if (c >= chunk_count() || chunk_groups_.find(c / ge)) return chunk(c);
  // One buffer per thread, reused: a scan over many groups touches its
  // pages once instead of faulting in a fresh 57 KB vector per group.
  thread_local std::vector<ChunkBlobs> scratch;
  return chunk_entry(c, decode_chunk_group(c / ge, scratch, c % ge) ? &scratch[c % ge] : nullptr);
}

ChunkEntry IndexFile::chunk_entry(size_t c, const ChunkBlobs* blobs) const {
  ChunkEntry e;
  e.first_eid = uint64_t(c) * chunk_steps_;
  e.steps = uint32_t(std::min<uint64_t>(chunk_steps_, meta_.step_count - std::min(e.first_eid, meta_.step_count)));
  if (blobs) {
    e.stream = blobs->stream;
    e.keyframe = blobs->keyframe;
  }
  return e;
}

std::shared_ptr<const ChunkSummary> IndexFile::summary(size_t c) const {
  const uint64_t ge = tables_[1].group_entries;
  if (c >= chunk_count()) return corrupt_summary_;
  auto g = summary_group(c / ge);
  if (!g) return corrupt_summary_;
  // Aliasing: the summary keeps its group alive.
  return std::shared_ptr<const ChunkSummary>(g, &(*g)[c % ge]);
}

bool IndexFile::page_ref(uint64_t id, BlobRef& out) const {
  const uint64_t ge = tables_[2].group_entries;
  if (id >= page_count()) return false;
  auto g = ref_group(IndexTable::Pages, id / ge);
  if (!g) return false;
  out = (*g)[id % ge];
  return true;
}

bool IndexFile::segment_ref(uint64_t id, BlobRef& out) const {
  const uint64_t ge = tables_[3].group_entries;
  if (id >= segment_count()) return false;
  auto g = ref_group(IndexTable::Segments, id / ge);
  if (!g) return false;
  out = (*g)[id % ge];
  return true;
}

bool IndexFile::note_failure(uint64_t offset, std::string what) const { return fail_at(offset, std::move(what)); }

size_t IndexFile::chunk_of(uint64_t eid) const {
  if (chunk_count() == 0) return 0;
  size_t c = size_t(eid / chunk_steps_);
  return std::min(c, chunk_count() - 1);
}

std::vector<IndexFile::LoadedChunk> IndexFile::load_all_chunks() const {
  std::vector<LoadedChunk> v(chunk_count());
  for (size_t c = 0; c < v.size(); ++c) {
    static_cast<ChunkEntry&>(v[c]) = chunk(c);
    v[c].summary = *summary(c);
  }
  return v;
}

Error IndexFile::chunk_error(size_t c) const {
  std::string what = last_failure.what.empty() ? "" : " (" + last_failure.what + ")";
  std::string msg = "index chunk " + std::to_string(c) + " is corrupt" + what + "; rebuild with `ttd index --rebuild`";
  if (last_failure.offset) return make_error_at(path_, last_failure.offset, msg);
  return make_error(path_, msg);
}

Status IndexFile::verify(const std::function<void(uint64_t, uint64_t)>& progress) const {
  std::string blob;
  auto failed = [&](const std::string& what) {
    return make_error_at(path_, last_failure.offset,
                         what + ": " + (last_failure.what.empty() ? "corrupt" : last_failure.what));
  };
  uint64_t done = 0;
  for (size_t c = 0; c < chunk_count(); ++c) {
    const uint64_t ge = tables_[0].group_entries;
    if (!chunk_group(c / ge)) return failed("chunk table group " + std::to_string(c / ge));
    if (summary(c)->corrupt) return failed("chunk summary group " + std::to_string(c / tables_[1].group_entries));
    ChunkEntry e = chunk(c);
    if (!read_blob(e.stream, blob)) return failed("chunk " + std::to_string(c) + " steps");
    if (!read_blob(e.keyframe, blob)) return failed("chunk " + std::to_string(c) + " keyframe");
    done += e.stream.size + e.keyframe.size;
    if (progress && c % 256 == 0) progress(done, size_);
  }
  for (IndexTable t : {IndexTable::PcFilters, IndexTable::AccessFilters})
    for (uint64_t e = 0; e < tables_[size_t(t)].entries; e += tables_[size_t(t)].group_entries)
      if (!(t == IndexTable::PcFilters ? bool(pc_filter(e)) : bool(access_filter(e))))
        return failed(std::string(table_name(t)) + " group " + std::to_string(e / tables_[size_t(t)].group_entries));
  // Deltas each page's restore applies (engine/page_delta_codec.h): the
  // reader refuses a chain longer than kMaxPageDeltaChain, so does this.
  // Grown as pages are read: a crafted head's page count allocates nothing.
  std::vector<uint8_t> chain, segment_chain;
  PageCache segments(*this, 0, 4096);
  for (IndexTable t : {IndexTable::Pages, IndexTable::Segments}) {
    const uint64_t n = t == IndexTable::Pages ? page_count() : segment_count();
    for (uint64_t id = 0; id < n; ++id) {
      BlobRef ref;
      bool ok = t == IndexTable::Pages ? page_ref(id, ref) : segment_ref(id, ref);
      if (!ok) return failed(std::string(table_name(t)) + " group " + std::to_string(id / tables_[size_t(t)].group_entries));
      const std::string what = std::string(t == IndexTable::Pages ? "page " : "page-map segment ") + std::to_string(id);
      if (!read_blob(ref, blob)) return failed(what);
      if (t == IndexTable::Segments) {
        const auto* raw = reinterpret_cast<const uint8_t*>(blob.data());
        SegmentHead head;
        const char* e = check_segment_blob(raw, blob.size(), id);
        segment_chain.push_back(0);
        if (!e && !parse_segment_head(raw, blob.size(), id, head) && head.delta) {
          segment_chain[id] = uint8_t(std::min<uint32_t>(segment_chain[head.base_id] + 1u, 255u));
          if (segment_chain[id] > kMaxSegmentDeltaChain) e = "delta chain longer than the reader allows";
        }
        if (e) {
          fail_at(ref.offset, e);
          return failed(what);
        }
        // A delta is checked against its base too (a removal of a page the
        // base lacks); bases are mostly still cached, a few ids back.
        if (!segments.segment(id)) return failed(what);
      }
      if (t == IndexTable::Pages) {
        const auto* raw = reinterpret_cast<const uint8_t*>(blob.data());
        PageDeltaHead head;
        const char* e = check_page_blob(raw, blob.size(), id);
        chain.push_back(0);
        if (!e && blob.size() != sizeof(Page) && !parse_page_delta(raw, blob.size(), id, head)) {
          chain[id] = uint8_t(head.zero_base ? 1 : chain[head.base_id] + 1);
          if (chain[id] > kMaxPageDeltaChain) e = "delta chain longer than the reader allows";
        }
        if (e) {
          fail_at(ref.offset, e);
          return failed(what);
        }
      }
      done += ref.size;
      if (progress && id % 4096 == 0) progress(done, size_);
    }
  }
  if (progress) progress(size_, size_);
  return {};
}

}  // namespace ttd
