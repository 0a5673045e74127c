#include "formats/ucir/snappy_frame_reader.h"

#include <snappy.h>

#include <cstring>

#include "formats/ucir/crc32c.h"
#include "formats/ucir/snappy_stream_identifier.h"
#include "formats/ucir/ucir_end_record.h"
#include "state/byte_order.h"

namespace ttd::fmt {

namespace {

constexpr size_t kReadBlock = 1 << 20;
constexpr size_t kMaxChunk = 4 + 4 + 76490;  // header + CRC + snappy::MaxCompressedLength(64 KiB)

std::string hex32(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", v);
  return buf;
}

std::string hex8(uint8_t v) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%02x", v);
  return buf;
}

}  // namespace

SnappyFrameReader::SnappyFrameReader(std::FILE* file, std::string path, uint64_t start, uint64_t file_size)
    : file_(file), path_(std::move(path)), file_size_(file_size), consumed_(start), chunk_offset_(start) {
  // Small files get a small buffer (cheap to open many, as the fuzzer does).
  in_.grow(std::min<uint64_t>(kReadBlock, std::max<uint64_t>(file_size - std::min(file_size, start), 64)) + kMaxChunk, 0);
}

SnappyFrameReader::~SnappyFrameReader() {
  if (file_) std::fclose(file_);
}

Error SnappyFrameReader::error_at(uint64_t offset, std::string message) const {
  return make_error_at(path_, offset, std::move(message));
}

bool SnappyFrameReader::fill(size_t n) {
  if (end_ - pos_ >= n) return true;
  if (pos_ > 0) {
    std::memmove(in_.data(), in_.data() + pos_, end_ - pos_);
    end_ -= pos_;
    pos_ = 0;
  }
  if (in_.size() < n) in_.grow(n, end_);
  while (end_ < n && file_ && !io_error_) {
    size_t want = in_.size() - end_;
    size_t got = std::fread(in_.data() + end_, 1, want, file_);
    end_ += got;
    if (got < want) {
      if (std::ferror(file_)) io_error_ = true;
      break;
    }
  }
  return end_ - pos_ >= n;
}

bool SnappyFrameReader::skip(size_t n) {
  while (n > 0) {
    if (pos_ == end_ && !fill(1)) return false;
    size_t take = std::min(n, end_ - pos_);
    pos_ += take;
    consumed_ += take;
    n -= take;
  }
  return true;
}

bool SnappyFrameReader::take_skippable(uint8_t type, size_t len) {
  const bool ours = (type == ucir::kEndPromiseChunk || type == ucir::kEndRecordChunk) && len <= ucir::kMaxEndRecord;
  if (!ours) return skip(len);
  if (!fill(len)) return false;
  const std::string_view text(reinterpret_cast<const char*>(in_.data() + pos_), len);
  if (type == ucir::kEndPromiseChunk && text == ucir::kEndPromise) promised_end_ = true;
  if (type == ucir::kEndRecordChunk && promised_end_) end_record_ = std::string(text);
  pos_ += len;
  consumed_ += len;
  return true;
}

Result<size_t> SnappyFrameReader::next(uint8_t* dst) {
  for (;;) {
    chunk_offset_ = consumed_;
    if (!fill(4)) {
      if (io_error_) return error_at(consumed_, "read error");
      if (end_ != pos_) cut_at_ = chunk_offset_;  // a partial header: the file ends inside it
      // ttd's writer promised an end record and none came: cut exactly at
      // a chunk boundary, which the framing alone cannot tell.
      else if (promised_end_ && !end_record_) cut_at_ = chunk_offset_;
      return size_t(0);
    }
    const uint8_t* h = in_.data() + pos_;
    const uint8_t type = h[0];
    const size_t len = size_t(h[1]) | size_t(h[2]) << 8 | size_t(h[3]) << 16;

    if (!seen_identifier_ && type != 0xff)
      return error_at(chunk_offset_, "snappy framed stream does not start with the stream identifier chunk");

    if (type == 0x00 || type == 0x01) {
      // Data chunk: the length is bounded by the format, so a corrupt
      // length cannot make us allocate or read far.
      const size_t limit = 4 + (type == 0x00 ? snappy::MaxCompressedLength(kMaxBlock) : kMaxBlock);
      if (len < 4)
        return error_at(chunk_offset_, "data chunk of " + std::to_string(len) + " bytes has no room for its CRC");
      if (len > limit)
        return error_at(chunk_offset_, std::string(type == 0 ? "compressed" : "uncompressed") + " chunk length " +
                                           std::to_string(len) + " exceeds the format's limit of " +
                                           std::to_string(limit));
      if (!fill(4 + len)) {
        if (io_error_) return error_at(consumed_, "read error");
        // The last chunk, cut short (the header says more than the file
        // holds): the stream ends before it. Only a tail is read this way;
        // a chunk that is whole and wrong is an error wherever it is.
        cut_at_ = chunk_offset_;
        return size_t(0);
      }
      const uint8_t* body = in_.data() + pos_ + 4;
      const uint32_t stored = load_le32(body);
      const uint8_t* payload = body + 4;
      const size_t plen = len - 4;
      size_t out = 0;
      if (type == 0x00) {
        size_t ulen = 0;
        if (!snappy::GetUncompressedLength(reinterpret_cast<const char*>(payload), plen, &ulen))
          return error_at(chunk_offset_, "corrupt snappy block (bad length preamble) in compressed chunk");
        if (ulen > kMaxBlock)
          return error_at(chunk_offset_, "compressed chunk decodes to " + std::to_string(ulen) +
                                             " bytes, more than the format's 65536");
        if (!snappy::RawUncompress(reinterpret_cast<const char*>(payload), plen, reinterpret_cast<char*>(dst)))
          return error_at(chunk_offset_, "corrupt snappy block in compressed chunk");
        out = ulen;
      } else {
        std::memcpy(dst, payload, plen);
        out = plen;
      }
      const uint32_t actual = crc32c_mask(crc32c({dst, out}));
      if (actual != stored)
        return error_at(chunk_offset_, "CRC mismatch in " + std::string(type == 0 ? "compressed" : "uncompressed") +
                                           " chunk at file byte " + std::to_string(chunk_offset_) + ": stored " +
                                           hex32(stored) + ", computed " + hex32(actual));
      pos_ += 4 + len;
      consumed_ += 4 + len;
      ++chunks_;
      if (out == 0) continue;
      return out;
    }
    if (type == 0xff) {
      if (len == 6 && !fill(10) && !io_error_) {
        cut_at_ = chunk_offset_;  // the file ends inside the identifier
        return size_t(0);
      }
      if (len != 6 || !fill(10) || std::memcmp(in_.data() + pos_, kSnappyStreamIdentifier, 10) != 0)
        return error_at(chunk_offset_, "bad snappy stream identifier chunk");
      seen_identifier_ = true;
      pos_ += 10;
      consumed_ += 10;
      continue;
    }
    if (type >= 0x02 && type <= 0x7f)
      return error_at(chunk_offset_, "reserved unskippable chunk type " + hex8(type));
    // 0x80..0xfe: skippable chunks and padding (0xfe).
    pos_ += 4;
    consumed_ += 4;
    if (!take_skippable(type, len)) {
      if (io_error_) return error_at(consumed_, "read error");
      cut_at_ = chunk_offset_;  // the file ends inside it
      return size_t(0);
    }
  }
}

}  // namespace ttd::fmt
