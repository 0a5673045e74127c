// The index builder's data region writer: compresses blobs (chunk
// streams, keyframes, pages) with the codec chosen for their kind
// (blob_codec_for; engine/blob_codec.h) and appends them to the index file
// on a background thread, so compression and I/O overlap with replaying
// the trace. A blob that compression cannot shrink is stored as it is (its
// stored size then equals its raw size); when the last few blobs of a kind
// (of 512 bytes or more) did not shrink, the next ones of that kind are
// stored without trying, with a retry now and then (the step streams of
// XRay traces barely compress). Blobs land in the file in the order they
// were put; each put() returns a ticket that finish() turns into the
// blob's BlobRef.
//
// Hand-offs are batched (the thread is woken once per many blobs) because
// waking a sleeping thread is expensive on a virtual machine; memory held
// by queued blobs is bounded, put() waits when the writer falls behind.
// With one usable CPU, or if no thread can be started, blobs are written
// in the caller's thread.
#pragma once
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "engine/blob_codec.h"
#include "engine/byte_codec.h"
#include "engine/index_layout.h"
#include "state/paged_memory.h"

namespace ttd {

// What a blob holds, so compression is judged per kind.
// TableGroup: the chunk, page and segment table groups the directory
// writer puts (engine/index_directory_writer.cpp), not through a BlobWriter.
enum class BlobKind : uint8_t { Steps, Keyframe, Segment, Page, Summaries, PageDelta, SummaryFilters, TableGroup };
constexpr size_t kBlobKinds = 8;

// The codec blobs of a kind are written with (docs/design.md, "Blob
// compression", has the measurements behind the choice).
BlobCodec blob_codec_for(BlobKind kind);
// The zstd level of a kind's blobs (negative: zstd's fast levels).
int blob_zstd_level(BlobKind kind);
// The raw bytes of a zstd block of a kind's blobs (0: as zstd chooses,
// up to 128 KiB). Step streams: a seek inflates blocks up to its target
// step, not the whole stream (engine/blob_prefix.h).
size_t blob_zstd_block(BlobKind kind);

class BlobWriter {
 public:
  // Appends to `out` (owned by the caller, positioned at `start`).
  BlobWriter(std::FILE* out, uint64_t start);
  ~BlobWriter();
  BlobWriter(const BlobWriter&) = delete;
  BlobWriter& operator=(const BlobWriter&) = delete;

  uint64_t put(ByteBlock bytes, BlobKind kind);
  // A block of at least `capacity` bytes whose bytes were written, for the
  // caller's next buffer (see ByteWriter::take); empty when none is at hand. The writer thread keeps
  // a few rather than freeing them: a free in another thread than the
  // allocating one costs glibc's allocator far more than a reuse.
  ByteBlock spare(size_t capacity);
  // A page shared copy-on-write: the live state copies before writing it.
  uint64_t put(std::shared_ptr<const Page> page);

  // Waits until every blob is written. After it: refs() by ticket (with
  // each blob's checksum), the file offset past the last blob, and the
  // first write error (empty if none).
  void finish();
  const std::vector<BlobRef>& refs() const { return refs_; }
  uint64_t end_offset() const { return pos_; }
  // Blobs the compressor was run on (after finish()). For tests.
  uint64_t compress_attempts() const { return compress_attempts_; }
  const std::string& error() const { return error_; }
  bool threaded() const { return threaded_; }

 private:
  struct Job {
    ByteBlock bytes;
    std::shared_ptr<const Page> page;  // if set, the blob (bytes unused)
    BlobKind kind = BlobKind::Page;
    const char* data() const {
      return page ? reinterpret_cast<const char*>(page.get()) : reinterpret_cast<const char*>(bytes.bytes.get());
    }
    size_t size() const { return page ? sizeof(Page) : bytes.size; }
  };
  void submit(Job&& job);
  void keep_spare(ByteBlock&& b);  // with mu_ held
  void run();
  void write(const Job& job);
  // Per kind: blobs in a row that compression did not pay for, and how
  // many more to store without trying.
  struct CompressionOdds {
    uint32_t misses = 0, skip = 0;
    // Small blobs (below kAlwaysTry) are judged a window at a time: when
    // the last kSmallWindow tried saved under 2 % in all, only one in
    // kSmallSampleEvery is tried until a window of those saves more.
    uint32_t small_count = 0, small_tried = 0;
    uint64_t small_raw = 0, small_stored = 0;
    bool small_sampling = false;
  };
  bool worth_compressing(BlobKind kind, size_t raw);
  void judge(BlobKind kind, size_t raw, size_t compressed);

  std::FILE* out_;
  uint64_t pos_;
  std::string error_;
  BlobCompressor compressor_;
  CompressionOdds odds_[kBlobKinds];  // by BlobKind
  std::vector<BlobRef> refs_;  // by ticket; written by the thread, read after finish()
  uint64_t tickets_ = 0;
  uint64_t compress_attempts_ = 0;  // written by the thread, read after finish()

  std::mutex mu_;
  std::condition_variable work_, drained_;
  std::deque<Job> queue_;    // guarded by mu_
  std::vector<ByteBlock> spares_;  // guarded by mu_
  size_t spare_bytes_ = 0;         // their capacity; guarded by mu_
  size_t queued_bytes_ = 0;  // guarded by mu_
  bool done_ = false;        // guarded by mu_
  bool writer_waiting_ = false, putter_waiting_ = false;  // guarded by mu_
  bool threaded_ = false, finished_ = false;
  std::thread thread_;
};

}  // namespace ttd
