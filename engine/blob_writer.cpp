#include "engine/blob_writer.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <system_error>

#include "state/host_cpus.h"

namespace ttd {

namespace {
constexpr size_t kBlobsBeforeWake = 64;               // blobs queued before the writer is woken
constexpr size_t kMaxQueuedBytes = size_t(64) << 20;  // put() waits beyond this
// A seek inflates a stream's blocks up to its target: on average half of a
// stream of many blocks. Smaller blocks cost bytes (each block its header
// and sequence tables): docs/performance.md, "Seeks, session 20".
constexpr size_t kStepStreamBlock = 4096;
constexpr uint32_t kMissesBeforeSkip = 4;  // blobs in a row that shrank less than 1/8
constexpr uint32_t kSkipRun = 63;          // then this many are stored as they are
// Blobs smaller than this are always compressed and not judged: page
// deltas are mostly tens of bytes, some incompressible, and four of those
// in a row made the writer store the next 63 raw, compressible or not
// (python3's page deltas: 0.95 x their raw size stored, 0.65 x with
// every one tried).
constexpr size_t kAlwaysTry = 512;
// ... unless a whole window of them gained nothing: a trace of random
// page contents (the Tenet generator's) has ~370,000 small page deltas and
// segments that zstd never shrinks, and trying each was 15 % of a
// one-core build (Huffman tables built and thrown away).
constexpr uint32_t kSmallWindow = 64;
constexpr uint32_t kSmallSampleEvery = 8;
constexpr size_t kMaxSpareBytes = size_t(16) << 20;  // written blocks kept for reuse, at most
// Only blocks this large are kept: small ones (page deltas, segments) come
// from the heap's free lists and are cheap to free, and kept they filled
// the few slots spare() looks at, so every chunk stream and keyframe buffer
// (megabytes, above ttd's mmap threshold) was mmapped and munmapped anew:
// 40 % of a one-core build was the kernel's page faults and unmaps.
constexpr size_t kMinSpareBytes = size_t(64) << 10;
}  // namespace

BlobWriter::BlobWriter(std::FILE* out, uint64_t start) : out_(out), pos_(start) {
  if (usable_cpus() < 2) return;  // the caller's thread compresses: nothing to overlap with
  try {
    thread_ = std::thread(&BlobWriter::run, this);
    threaded_ = true;
  } catch (const std::system_error&) {
    threaded_ = false;
  }
}

BlobWriter::~BlobWriter() {
  finish();
}

uint64_t BlobWriter::put(ByteBlock bytes, BlobKind kind) {
  submit(Job{std::move(bytes), nullptr, kind});
  return tickets_++;
}

uint64_t BlobWriter::put(std::shared_ptr<const Page> page) {
  submit(Job{{}, std::move(page), BlobKind::Page});
  return tickets_++;
}

ByteBlock BlobWriter::spare(size_t capacity) {
  std::lock_guard<std::mutex> lock(mu_);
  // Blocks of a few sizes alternate (keyframes, step streams): look at the
  // last few only.
  for (size_t i = spares_.size(), seen = 0; i-- > 0 && seen < 8; ++seen) {
    if (spares_[i].capacity < capacity) continue;
    ByteBlock b = std::move(spares_[i]);
    spares_[i] = std::move(spares_.back());
    spares_.pop_back();
    spare_bytes_ -= b.capacity;
    return b;
  }
  return {};
}

void BlobWriter::submit(Job&& job) {
  if (!threaded_) {
    write(job);
    std::lock_guard<std::mutex> lock(mu_);
    keep_spare(std::move(job.bytes));
    return;
  }
  std::unique_lock<std::mutex> lock(mu_);
  if (queued_bytes_ > kMaxQueuedBytes) {
    putter_waiting_ = true;
    if (writer_waiting_) work_.notify_one();
    drained_.wait(lock, [&] { return queued_bytes_ <= kMaxQueuedBytes / 2; });
    putter_waiting_ = false;
  }
  queued_bytes_ += job.size();
  queue_.push_back(std::move(job));
  if (writer_waiting_ && queue_.size() >= kBlobsBeforeWake) work_.notify_one();
}

void BlobWriter::run() {
  std::deque<Job> batch;
  for (;;) {
    size_t batch_bytes = 0;
    {
      std::unique_lock<std::mutex> lock(mu_);
      writer_waiting_ = true;
      work_.wait(lock, [&] { return done_ || queue_.size() >= kBlobsBeforeWake || (putter_waiting_ && !queue_.empty()); });
      writer_waiting_ = false;
      if (queue_.empty() && done_) return;
      batch.swap(queue_);
    }
    for (const Job& j : batch) {
      write(j);
      batch_bytes += j.size();
    }
    std::lock_guard<std::mutex> lock(mu_);
    for (Job& j : batch) keep_spare(std::move(j.bytes));
    batch.clear();
    queued_bytes_ -= batch_bytes;
    if (putter_waiting_) drained_.notify_one();
  }
}

void BlobWriter::keep_spare(ByteBlock&& b) {
  if (!b.bytes || b.capacity < kMinSpareBytes || spare_bytes_ + b.capacity > kMaxSpareBytes) return;
  spare_bytes_ += b.capacity;
  spares_.push_back(std::move(b));
}

BlobCodec blob_codec_for(BlobKind kind) {
  (void)kind;
  return BlobCodec::Zstd;
}

int blob_zstd_level(BlobKind kind) {
  // Read by every seek: zstd's fast level -1 decompresses about as fast
  // as snappy; level 1 took 10-25 us more per seek (docs/design.md).
  return kind == BlobKind::Steps || kind == BlobKind::Keyframe ? -1 : 1;
}

size_t blob_zstd_block(BlobKind kind) { return kind == BlobKind::Steps ? kStepStreamBlock : 0; }

bool BlobWriter::worth_compressing(BlobKind kind, size_t raw) {
  CompressionOdds& o = odds_[size_t(kind)];
  if (raw < kAlwaysTry) return !o.small_sampling || o.small_count++ % kSmallSampleEvery == 0;
  if (o.skip == 0) return true;
  --o.skip;
  return false;
}

void BlobWriter::judge(BlobKind kind, size_t raw, size_t compressed) {
  CompressionOdds& o = odds_[size_t(kind)];
  ++compress_attempts_;
  if (raw < kAlwaysTry) {
    o.small_raw += raw;
    o.small_stored += std::min(raw, compressed);
    if (++o.small_tried == kSmallWindow) {
      o.small_sampling = o.small_stored * 50 >= o.small_raw * 49;
      o.small_count = 0;
      o.small_tried = 0;
      o.small_raw = o.small_stored = 0;
    }
    return;
  }
  if (compressed < raw - raw / 8) {
    o.misses = 0;
  } else if (++o.misses >= kMissesBeforeSkip) {
    o.misses = kMissesBeforeSkip - 1;  // one more miss after the run skips again
    o.skip = kSkipRun;
  }
}

void BlobWriter::write(const Job& job) {
  const size_t n = job.size();
  const char* data = job.data();
  size_t len = n;
  if (worth_compressing(job.kind, n)) {
    const bool smaller = compressor_.compress(data, n, blob_codec_for(job.kind), blob_zstd_level(job.kind),
                                             blob_zstd_block(job.kind));
    judge(job.kind, n, compressor_.stored_size());
    if (smaller) {  // stored size < raw size marks a compressed blob
      data = compressor_.stored();
      len = compressor_.stored_size();
    }
  }
  refs_.push_back(BlobRef{pos_, uint32_t(len), uint32_t(n), blob_checksum(data, len, pos_)});
  if (out_ && std::fwrite(data, 1, len, out_) != len && error_.empty()) error_ = std::strerror(errno);
  pos_ += len;
}

void BlobWriter::finish() {
  if (finished_) return;
  finished_ = true;
  if (threaded_) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      done_ = true;
    }
    work_.notify_one();
    thread_.join();
  }
}

}  // namespace ttd
