// Read side of a trace index: opens the file, validates the header and the
// directory head, and reads table entries (chunks, summaries, pages,
// segments) and blobs on demand, checking each one's checksum as it is
// read. Memory held does not grow with the index: table groups are cached
// in bounded caches. Thread safe (const methods may run concurrently).
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/index_group_cache.h"
#include "engine/index_layout.h"
#include "engine/index_tables.h"
#include "engine/source_stamp.h"
#include "engine/summary_filter.h"
#include "engine/state_apply.h"
#include "engine/trace.h"
#include "state/error.h"

namespace ttd {

class BlobPrefix;

// Everything the directory holds besides the chunk and page tables.
struct IndexMeta {
  fmt::TraceInfo info;
  std::vector<ThreadInfo> threads;      // by thread index
  std::vector<std::string> attr_keys;   // attribute key ids -> names
  uint64_t step_count = 0;
  uint64_t unique_pages = 0;
  double build_seconds = 0;
  // Files the trace maps (engine/mapped_files.h), as the builder sampled
  // them; nullopt in an index without the table (the JSON key is
  // optional): then the symbolizer samples the keyframes itself.
  std::optional<std::map<std::string, uint64_t>> mapped_files;
};

class IndexFile {
 public:
  // Opens and validates the header and the directory head (engine/
  // index_layout.h); the tables and blobs are checked when read. An Error
  // explains why the index cannot be used (missing, not a regular file,
  // other version, stale against `now`, bad checksum of the header or the
  // head, a head that does not add up). Freshness is judge_freshness():
  // when it needs the trace's content, content_hash() is called (empty: the
  // index counts as stale). Never blocks on a FIFO.
  using ContentHash = std::function<Result<uint64_t>()>;
  static Result<std::unique_ptr<IndexFile>> open(const std::string& path, const SourceStamp& now,
                                                 const ContentHash& content_hash = {});
  // The index its builder has just written and renamed into place. Takes
  // ownership of `fd`, open on that file (not reopened by name: another
  // build may have renamed its own file onto the path since).
  static Result<std::unique_ptr<IndexFile>> adopt(int fd, const std::string& path);
  ~IndexFile();

  const std::string& path() const { return path_; }
  const IndexMeta& meta() const { return meta_; }
  size_t chunk_count() const { return size_t(tables_[0].entries); }
  // Chunk c's place and blobs (c < chunk_count()). When its table group is
  // corrupt the blob refs are left empty: reading them fails, and
  // chunk_error() then names the group's offset.
  ChunkEntry chunk(size_t c) const;
  // The same, for scans that visit many table groups once (the
  // symbolizer's sampling of keyframes): a group not cached is decoded
  // into a per-thread buffer and not kept.
  ChunkEntry chunk_passing(size_t c) const;
  // Chunk c's summary, never null; corrupt (ChunkSummary::corrupt, every
  // question "maybe") when its group cannot be read.
  std::shared_ptr<const ChunkSummary> summary(size_t c) const;
  // Summary group g's filters (engine/summary_filter.h; g covers chunks
  // [g, g + 1) x chunks_per_filter()). Null when its table group cannot be
  // read: then the caller must answer "maybe" (and read the summaries).
  uint64_t chunks_per_filter() const { return tables_[1].group_entries; }
  std::shared_ptr<const GroupPcFilter> pc_filter(uint64_t g) const;
  std::shared_ptr<const GroupAccessFilter> access_filter(uint64_t g) const;
  uint64_t page_count() const { return tables_[2].entries; }
  uint64_t segment_count() const { return tables_[3].entries; }
  // Page / page-map segment id's blob (false: id out of range or corrupt group).
  bool page_ref(uint64_t id, BlobRef& out) const;
  bool segment_ref(uint64_t id, BlobRef& out) const;
  const std::vector<ThreadSlot>& thread_slots() const { return slots_; }
  uint32_t chunk_steps() const { return chunk_steps_; }
  uint64_t file_size() const { return size_; }
  // Decompresses a blob into out after checking its checksum; false if it
  // is corrupt (then chunk_error() says where, in this thread).
  bool read_blob(const BlobRef& ref, std::string& out) const;
  // The same into a blob a reader inflates only as far as it needs
  // (engine/blob_prefix.h): read and checked now, inflated later.
  bool read_blob_prefix(const BlobRef& ref, BlobPrefix& out) const;
  // Notes a failure found in a blob's content (offset: the blob's), for
  // chunk_error() in this thread, as read_blob notes its own; returns false.
  bool note_failure(uint64_t offset, std::string what) const;
  // Chunk holding eid (the last chunk for eid == step_count).
  size_t chunk_of(uint64_t eid) const;
  // The error for a chunk whose blobs or summary could not be read: the
  // index file, the byte offset of the last failed read in this thread and
  // what was wrong there.
  Error chunk_error(size_t c) const;
  // Every chunk with its summary, for tests and benchmarks only: memory
  // grows with the index, which nothing else here does.
  struct LoadedChunk : ChunkEntry {
    ChunkSummary summary;
  };
  std::vector<LoadedChunk> load_all_chunks() const;
  // Where table t lies (its group index: GroupRecords from index_offset).
  const TablePlace& table(IndexTable t) const { return tables_[size_t(t)]; }
  // Reads and checks every table group and blob (`ttd index --verify`):
  // the first corruption found, with its offset. `progress` gets (done,
  // total) bytes now and then.
  Status verify(const std::function<void(uint64_t, uint64_t)>& progress = {}) const;

 private:
  IndexFile();
  static Result<std::unique_ptr<IndexFile>> open_fd(int fd, const std::string& path);
  Status parse_head(const uint8_t* p, size_t n);
  // Group g of table t, decompressed and checked; false (failure noted) if not.
  bool read_group(IndexTable t, uint64_t g, std::string& raw) const;
  std::shared_ptr<const std::vector<ChunkBlobs>> chunk_group(uint64_t g) const;
  // Entries [0, last] of chunk group g (all of them by default).
  bool decode_chunk_group(uint64_t g, std::vector<ChunkBlobs>& v, size_t last = SIZE_MAX) const;
  // Chunk c's first EID and steps, with the blobs when given (else empty).
  ChunkEntry chunk_entry(size_t c, const ChunkBlobs* blobs) const;
  std::shared_ptr<const std::vector<ChunkSummary>> summary_group(uint64_t g) const;
  std::shared_ptr<const std::vector<BlobRef>> ref_group(IndexTable t, uint64_t g) const;
  // Filter-table group of table t holding entry `entry` (t: PcFilters or
  // AccessFilters), decoded by `decode`; null if it cannot be read.
  template <class Filter, class Decode>
  std::shared_ptr<const Filter> filter(IndexTable t, IndexGroupCache<Filter>& cache, uint64_t entry,
                                       Decode decode) const;

  int fd_ = -1;
  std::string path_;
  uint64_t size_ = 0;
  uint32_t chunk_steps_ = 0;
  IndexMeta meta_;
  TablePlace tables_[kIndexTables];
  std::vector<ThreadSlot> slots_;
  mutable IndexGroupCache<ChunkBlobs> chunk_groups_;
  mutable IndexGroupCache<ChunkSummary> summary_groups_;
  mutable IndexGroupCache<BlobRef> ref_groups_[2];  // pages, segments
  mutable IndexGroupCache<GroupPcFilter> pc_filters_;
  mutable IndexGroupCache<GroupAccessFilter> access_filters_;
  std::shared_ptr<const ChunkSummary> corrupt_summary_;
};

}  // namespace ttd
