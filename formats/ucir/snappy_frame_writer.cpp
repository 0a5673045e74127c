#include "formats/ucir/snappy_frame_writer.h"

#include <snappy.h>

#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>

#include "formats/ucir/crc32c.h"
#include "formats/ucir/snappy_stream_identifier.h"
#include "formats/ucir/ucir_end_record.h"
#include "state/byte_order.h"

namespace ttd::fmt {

struct SnappyFrameWriter::Worker {
  std::mutex mu;
  std::condition_variable cv;
  std::deque<std::vector<uint8_t>> full;   // in stream order
  std::vector<std::vector<uint8_t>> free;  // written blocks, reused
  bool done = false;
  std::thread thread;
};

SnappyFrameWriter::SnappyFrameWriter(std::FILE* file, std::string path, bool background)
    : file_(file), path_(std::move(path)) {
  block_.reserve(kBlock);
  if (!background) return;
  worker_ = std::make_unique<Worker>();
  worker_->thread = std::thread([this] {
    Worker& w = *worker_;
    for (;;) {
      std::vector<uint8_t> b;
      {
        std::unique_lock<std::mutex> lock(w.mu);
        w.cv.wait(lock, [&] { return !w.full.empty() || w.done; });
        if (w.full.empty()) return;
        b = std::move(w.full.front());
        w.full.pop_front();
      }
      w.cv.notify_all();
      emit_block(b.data(), b.size());
      b.clear();
      std::lock_guard<std::mutex> lock(w.mu);
      w.free.push_back(std::move(b));
    }
  });
}

SnappyFrameWriter::~SnappyFrameWriter() { stop_worker(); }

void SnappyFrameWriter::stop_worker() {
  if (!worker_) return;
  {
    std::lock_guard<std::mutex> lock(worker_->mu);
    worker_->done = true;
  }
  worker_->cv.notify_all();
  worker_->thread.join();
  worker_.reset();
}

void SnappyFrameWriter::hand_off() {
  Worker& w = *worker_;
  std::unique_lock<std::mutex> lock(w.mu);
  w.cv.wait(lock, [&] { return w.full.size() < kMaxQueued; });
  w.full.push_back(std::move(block_));
  block_ = std::vector<uint8_t>();
  if (!w.free.empty()) {
    block_ = std::move(w.free.back());
    w.free.pop_back();
  }
  lock.unlock();
  w.cv.notify_all();
  block_.reserve(kBlock);
}

void SnappyFrameWriter::put(const void* p, size_t n) {
  if (failed_ || n == 0) return;
  if (std::fwrite(p, 1, n, file_) != n) failed_ = true;
}

void SnappyFrameWriter::put_skippable(uint8_t type, std::string_view payload) {
  payload = payload.substr(0, ucir::kMaxEndRecord);
  const uint8_t header[4] = {type, uint8_t(payload.size()), uint8_t(payload.size() >> 8),
                             uint8_t(payload.size() >> 16)};
  put(header, sizeof header);
  put(payload.data(), payload.size());
}

void SnappyFrameWriter::start_stream() {
  if (wrote_identifier_) return;
  put(kSnappyStreamIdentifier, sizeof kSnappyStreamIdentifier);
  if (promise_end_) put_skippable(ucir::kEndPromiseChunk, ucir::kEndPromise);
  wrote_identifier_ = true;
}

void SnappyFrameWriter::emit_block(const uint8_t* data, size_t n) {
  start_stream();
  const uint32_t crc = crc32c_mask(crc32c({data, n}));
  // Into a buffer sized once: snappy::Compress into a std::string
  // zero-fills up to the worst-case length on every block.
  if (compressed_.size() < snappy::MaxCompressedLength(n)) compressed_.resize(snappy::MaxCompressedLength(n));
  size_t packed = 0;
  snappy::RawCompress(reinterpret_cast<const char*>(data), n, compressed_.data(), &packed);
  // Like golang/snappy: store the block raw unless compression saves at
  // least 1/8, which keeps incompressible data cheap to decode.
  const bool raw = packed >= n - n / 8;
  const size_t body = 4 + (raw ? n : packed);
  uint8_t header[8] = {uint8_t(raw ? 0x01 : 0x00), uint8_t(body), uint8_t(body >> 8), uint8_t(body >> 16)};
  store_le32(header + 4, crc);
  put(header, sizeof header);
  if (raw)
    put(data, n);
  else
    put(compressed_.data(), packed);
}

void SnappyFrameWriter::write(std::span<const uint8_t> data) {
  bytes_in_ += data.size();
  const uint8_t* p = data.data();
  size_t n = data.size();
  // Whole blocks straight from the caller's buffer avoid a copy.
  if (block_.empty() && !worker_) {
    while (n >= kBlock) {
      emit_block(p, kBlock);
      p += kBlock;
      n -= kBlock;
    }
  }
  while (n > 0) {
    size_t take = std::min(n, kBlock - block_.size());
    block_.insert(block_.end(), p, p + take);
    p += take;
    n -= take;
    if (block_.size() == kBlock) {
      if (worker_) {
        hand_off();
        continue;
      }
      emit_block(block_.data(), block_.size());
      block_.clear();
    }
  }
}

void SnappyFrameWriter::flush() {
  if (!block_.empty() && worker_) return hand_off();
  if (!block_.empty()) {
    emit_block(block_.data(), block_.size());
    block_.clear();
  }
}

Status SnappyFrameWriter::finish(std::optional<std::string_view> end_record) {
  flush();
  stop_worker();
  if (promise_end_ && end_record) {
    start_stream();  // an empty stream still promises, and keeps it
    put_skippable(ucir::kEndRecordChunk, *end_record);
    promise_end_ = false;  // once
  }
  if (!failed_ && std::fflush(file_) != 0) failed_ = true;
  if (failed_) return make_error(path_, "write error");
  return {};
}

}  // namespace ttd::fmt
