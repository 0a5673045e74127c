#include "engine/blob_writer.h"

#include <snappy.h>
#include <xxhash.h>

#include <cerrno>
#include <cstring>
#include <system_error>

namespace ttd {

namespace {
constexpr size_t kWakeJobs = 64;                   // blobs queued before the writer is woken
constexpr size_t kMaxQueuedBytes = size_t(64) << 20;  // put() waits beyond this
}  // namespace

BlobWriter::BlobWriter(std::FILE* out, uint64_t start) : out_(out), pos_(start) {
  auto* st = XXH3_createState();
  XXH3_64bits_reset(st);
  hash_state_ = st;
  try {
    thread_ = std::thread(&BlobWriter::run, this);
    threaded_ = true;
  } catch (const std::system_error&) {
    threaded_ = false;
  }
}

BlobWriter::~BlobWriter() {
  finish();
  XXH3_freeState(static_cast<XXH3_state_t*>(hash_state_));
}

uint64_t BlobWriter::put(std::vector<uint8_t> bytes) {
  submit(Job{std::move(bytes), nullptr});
  return tickets_++;
}

uint64_t BlobWriter::put(std::shared_ptr<const Page> page) {
  submit(Job{{}, std::move(page)});
  return tickets_++;
}

void BlobWriter::submit(Job&& job) {
  if (!threaded_) {
    write(job);
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
  if (writer_waiting_ && queue_.size() >= kWakeJobs) work_.notify_one();
}

void BlobWriter::run() {
  std::deque<Job> batch;
  for (;;) {
    size_t batch_bytes = 0;
    {
      std::unique_lock<std::mutex> lock(mu_);
      writer_waiting_ = true;
      work_.wait(lock, [&] { return done_ || queue_.size() >= kWakeJobs || (putter_waiting_ && !queue_.empty()); });
      writer_waiting_ = false;
      if (queue_.empty() && done_) return;
      batch.swap(queue_);
    }
    for (const Job& j : batch) {
      write(j);
      batch_bytes += j.size();
    }
    batch.clear();
    std::lock_guard<std::mutex> lock(mu_);
    queued_bytes_ -= batch_bytes;
    if (putter_waiting_) drained_.notify_one();
  }
}

void BlobWriter::write(const Job& job) {
  const size_t n = job.size();
  compressed_.resize(snappy::MaxCompressedLength(n));
  size_t clen = 0;
  snappy::RawCompress(job.data(), n, compressed_.data(), &clen);
  refs_.push_back(BlobRef{pos_, uint32_t(clen), uint32_t(n)});
  if (out_ && std::fwrite(compressed_.data(), 1, clen, out_) != clen && error_.empty())
    error_ = std::strerror(errno);
  XXH3_64bits_update(static_cast<XXH3_state_t*>(hash_state_), compressed_.data(), clen);
  pos_ += clen;
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
  data_hash_ = XXH3_64bits_digest(static_cast<XXH3_state_t*>(hash_state_));
}

}  // namespace ttd
