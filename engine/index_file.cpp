#include "engine/index_file.h"

#include <fcntl.h>
#include <snappy.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "engine/byte_codec.h"
#include "engine/index_meta_json.h"

namespace ttd {

IndexFile::~IndexFile() {
  if (fd_ >= 0) ::close(fd_);
}

namespace {
// Reads exactly n bytes at off; false on a short read or an error.
bool pread_all(int fd, void* dst, size_t n, uint64_t off) {
  auto* p = static_cast<uint8_t*>(dst);
  while (n) {
    ssize_t got = ::pread(fd, p, n, off_t(off));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    p += got;
    n -= size_t(got);
    off += uint64_t(got);
  }
  return true;
}

// The data region's xxh3 against the header's, streamed in blocks so that
// opening does not hold the whole index in memory.
bool data_hash_matches(int fd, const IndexHeader& h) {
  XXH3_state_t* hs = XXH3_createState();
  XXH3_64bits_reset(hs);
  std::vector<uint8_t> block(size_t(std::min<uint64_t>(uint64_t(4) << 20, h.dir_offset - kIndexHeaderSize + 1)));
  bool ok = true;
  for (uint64_t off = kIndexHeaderSize; ok && off < h.dir_offset;) {
    size_t n = size_t(std::min<uint64_t>(block.size(), h.dir_offset - off));
    ok = pread_all(fd, block.data(), n, off);
    if (ok) XXH3_64bits_update(hs, block.data(), n);
    off += n;
  }
  uint64_t digest = XXH3_64bits_digest(hs);
  XXH3_freeState(hs);
  return ok && digest == h.data_checksum;
}
}  // namespace

Result<std::unique_ptr<IndexFile>> IndexFile::open(const std::string& path, const SourceStamp& now,
                                                   const ContentHash& content_hash) {
  // Blobs are read with pread rather than through a mapping: a seek then
  // costs two small reads, and the process's RSS stays its own working set
  // instead of growing to the whole index as seeks touch it. O_NONBLOCK:
  // opening a FIFO must not wait for a writer (it is refused below).
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return make_error(path, "no index yet");
  std::unique_ptr<IndexFile> f(new IndexFile());
  f->fd_ = fd;
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
  SourceStamp recorded{h.source_size, h.source_mtime_ns, h.source_identity, h.source_content_hash};
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
  if (h.dir_offset < kIndexHeaderSize || h.dir_offset > size || h.dir_size > size - h.dir_offset)
    return make_error_at(path, offsetof(IndexHeader, dir_offset), "index directory out of bounds");
  if (h.chunk_steps == 0) return make_error_at(path, offsetof(IndexHeader, chunk_steps), "index chunk size is 0");
  std::vector<uint8_t> dir(h.dir_size);
  if (!pread_all(fd, dir.data(), dir.size(), h.dir_offset) || XXH3_64bits(dir.data(), dir.size()) != h.dir_checksum)
    return make_error_at(path, h.dir_offset, "index directory checksum mismatch");
  if (!data_hash_matches(fd, h)) return make_error_at(path, kIndexHeaderSize, "index data checksum mismatch");
  f->chunk_steps_ = h.chunk_steps;
  if (auto s = f->parse_directory(path, dir.data(), dir.size()); !s) return s.error();
  return f;
}

Result<std::unique_ptr<IndexFile>> IndexFile::adopt(int fd, Parts parts) {
  std::unique_ptr<IndexFile> f(new IndexFile());
  f->fd_ = fd;
  struct stat st {};
  ::fstat(fd, &st);
  f->size_ = uint64_t(st.st_size);
  f->chunk_steps_ = parts.chunk_steps;
  f->meta_ = std::move(parts.meta);
  f->chunks_ = std::move(parts.chunks);
  f->pages_ = std::move(parts.pages);
  f->segments_ = std::move(parts.segments);
  for (auto& t : f->meta_.threads) f->slots_.push_back(ThreadSlot{t.tid, t.pid});
  return f;
}

namespace {
template <class T>
bool read_list(ByteReader& r, std::vector<T>& out) {
  uint64_t n = r.var();
  if (n > r.remaining()) return false;
  out.resize(n);
  uint64_t prev = 0;
  for (auto& x : out) {
    prev += r.var();
    x = T(prev);
  }
  return r.ok();
}
// n slot masks, one per line just read; a line with no slot is corrupt.
bool read_slots(ByteReader& r, size_t n, std::vector<uint8_t>& out) {
  out.resize(n);
  if (n && !r.bytes(out.data(), n)) return false;
  return std::find(out.begin(), out.end(), uint8_t(0)) == out.end();
}
bool read_ref(ByteReader& r, BlobRef& b) {
  b.offset = r.var();
  b.size = uint32_t(r.var());
  b.raw_size = uint32_t(r.var());
  return r.ok();
}
}  // namespace

Status IndexFile::parse_directory(const std::string& path, const uint8_t* p, size_t n) {
  ByteReader r(p, n);
  std::string json = r.str();
  if (!r.ok() || !meta_from_json(json, meta_)) return make_error(path, "index metadata is malformed");
  uint64_t nchunks = r.var();
  if (nchunks > n) return make_error(path, "index chunk table is malformed");
  chunks_.resize(nchunks);
  uint64_t eid = 0;
  for (auto& c : chunks_) {
    c.first_eid = eid;
    c.steps = uint32_t(r.var());
    eid += c.steps;
    bool ok = read_ref(r, c.stream) && read_ref(r, c.keyframe) && read_list(r, c.summary.pcs) &&
              read_list(r, c.summary.pages_read) && read_list(r, c.summary.pages_written) &&
              read_list(r, c.summary.threads) && read_list(r, c.summary.lines_read) &&
              read_slots(r, c.summary.lines_read.size(), c.summary.line_slots_read) &&
              read_list(r, c.summary.lines_written) &&
              read_slots(r, c.summary.lines_written.size(), c.summary.line_slots_written) &&
              read_list(r, c.summary.pages_read_coarse) && read_list(r, c.summary.pages_written_coarse);
    for (auto& w : c.summary.regs_written) w = r.fixed64();
    if (!ok || !r.ok()) return make_error(path, "index chunk table is malformed");
  }
  if (eid != meta_.step_count) return make_error(path, "index chunk table does not add up to the step count");
  uint64_t npages = r.var();
  if (npages > n) return make_error(path, "index page table is malformed");
  pages_.resize(npages);
  for (auto& b : pages_)
    if (!read_ref(r, b)) return make_error(path, "index page table is malformed");
  uint64_t nsegments = r.var();
  if (nsegments > n) return make_error(path, "index page-map segment table is malformed");
  segments_.resize(nsegments);
  for (auto& b : segments_)
    if (!read_ref(r, b)) return make_error(path, "index page-map segment table is malformed");
  for (auto& t : meta_.threads) slots_.push_back(ThreadSlot{t.tid, t.pid});
  for (auto& c : chunks_)
    for (uint32_t t : c.summary.threads)
      if (t >= slots_.size()) return make_error(path, "index chunk names an unknown thread");
  return {};
}

bool IndexFile::read_blob(const BlobRef& ref, std::string& out) const {
  if (ref.offset < kIndexHeaderSize || ref.offset > size_ || ref.size > size_ - ref.offset) return false;
  if (ref.size == ref.raw_size) {  // stored as it is
    out.resize(ref.size);
    return pread_all(fd_, out.data(), ref.size, ref.offset);
  }
  // One buffer per thread: cursors of several clients read concurrently.
  thread_local std::string compressed;
  compressed.resize(ref.size);
  if (!pread_all(fd_, compressed.data(), ref.size, ref.offset)) return false;
  const char* src = compressed.data();
  size_t raw = 0;
  if (!snappy::GetUncompressedLength(src, ref.size, &raw) || raw != ref.raw_size) return false;
  // Snappy expands at most 64 bytes out of a 3-byte copy: a larger claim
  // is a crafted blob that would make Uncompress allocate up to 4 GiB.
  if (raw > uint64_t(ref.size) * 22 + 64) return false;
  return snappy::Uncompress(src, ref.size, &out);
}

size_t IndexFile::chunk_of(uint64_t eid) const {
  if (chunks_.empty()) return 0;
  size_t c = size_t(eid / chunk_steps_);
  return std::min(c, chunks_.size() - 1);
}

}  // namespace ttd
