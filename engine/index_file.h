// Read side of a trace index: opens the file, validates header and
// checksums, and exposes the directory (metadata, chunk table with
// summaries, page table) and decompressed blobs.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/index_layout.h"
#include "engine/source_stamp.h"
#include "engine/state_apply.h"
#include "engine/trace.h"
#include "state/error.h"

namespace ttd {


// Everything the directory holds besides the chunk and page tables.
struct IndexMeta {
  fmt::TraceInfo info;
  std::vector<ThreadInfo> threads;      // by thread index
  std::vector<std::string> attr_keys;   // attribute key ids -> names
  uint64_t step_count = 0;
  uint64_t unique_pages = 0;
  double build_seconds = 0;
};

class IndexFile {
 public:
  // Opens and validates; an Error explains why the index cannot be used
  // (missing, not a regular file, other version, stale against `now`, bad
  // checksum of the header, the directory or the data). Freshness is
  // judge_freshness(): when it needs the trace's content, content_hash()
  // is called (empty: the index counts as stale). Never blocks on a FIFO.
  using ContentHash = std::function<Result<uint64_t>()>;
  static Result<std::unique_ptr<IndexFile>> open(const std::string& path, const SourceStamp& now,
                                                 const ContentHash& content_hash = {});
  // The index its builder has just written and renamed into place, from
  // the builder's own directory (parsing the file back would only rebuild
  // the same tables; the reuse path parses and checks it on the next open).
  struct Parts {
    uint32_t chunk_steps = 0;
    IndexMeta meta;
    std::vector<ChunkEntry> chunks;
    std::vector<BlobRef> pages, segments;
  };
  // Takes ownership of `fd`, open on the file just built (not reopened by
  // name: another build may have renamed its own file onto the path since).
  static Result<std::unique_ptr<IndexFile>> adopt(int fd, Parts parts);
  ~IndexFile();

  const IndexMeta& meta() const { return meta_; }
  const std::vector<ChunkEntry>& chunks() const { return chunks_; }
  const std::vector<BlobRef>& pages() const { return pages_; }
  const std::vector<BlobRef>& segments() const { return segments_; }  // page-map segments
  const std::vector<ThreadSlot>& thread_slots() const { return slots_; }
  uint32_t chunk_steps() const { return chunk_steps_; }
  uint64_t file_size() const { return size_; }
  // Decompresses a blob into out; false if it is corrupt.
  bool read_blob(const BlobRef& ref, std::string& out) const;
  // Chunk holding eid (the last chunk for eid == step_count).
  size_t chunk_of(uint64_t eid) const;

 private:
  IndexFile() = default;
  Status parse_directory(const std::string& path, const uint8_t* p, size_t n);

  int fd_ = -1;
  uint64_t size_ = 0;
  uint32_t chunk_steps_ = 0;
  IndexMeta meta_;
  std::vector<ChunkEntry> chunks_;
  std::vector<BlobRef> pages_;
  std::vector<BlobRef> segments_;
  std::vector<ThreadSlot> slots_;
};

}  // namespace ttd
