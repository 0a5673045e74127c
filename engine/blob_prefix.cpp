#include "engine/blob_prefix.h"

// The buffer-less decompression calls (ZSTD_decompressBegin/Continue) are
// in zstd's static-linking section: stable in practice since 1.3, and the
// header and library are the same package (ttd links libzstd.a).
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>

#include <cstring>

#include "engine/blob_codec.h"
#include "engine/blob_reader.h"

namespace ttd {

BlobPrefix::BlobPrefix() = default;
BlobPrefix::~BlobPrefix() { ZSTD_freeDCtx(static_cast<ZSTD_DCtx*>(dctx_)); }

const char* BlobPrefix::open(int fd, const BlobRef& ref) {
  raw_size_ = available_ = 0;
  error_ = "blob not read";
  if (stored_.size() < kBlobHeadroom + ref.size) stored_.resize(kBlobHeadroom + ref.size);
  if (!pread_all(fd, stored_.data() + kBlobHeadroom, ref.size, ref.offset)) return error_ = "cannot read the blob";
  return open_stored(nullptr, ref.size, ref.raw_size, ref.checksum, ref.offset);
}

const char* BlobPrefix::open_stored(const char* stored, size_t size, size_t raw_size, uint32_t checksum,
                                    uint64_t offset) {
  raw_size_ = available_ = in_at_ = in_end_ = 0;
  if (stored) {  // else open() put them in place
    if (stored_.size() < kBlobHeadroom + size) stored_.resize(kBlobHeadroom + size);
    std::memcpy(stored_.data() + kBlobHeadroom, stored, size);
  }
  char* s = stored_.data() + kBlobHeadroom;
  if (blob_checksum(s, size, offset) != checksum) return error_ = "blob checksum mismatch";
  // Grown, never shrunk, and not zero-filled: every byte is written
  // before available() covers it.
  if (raw_capacity_ < raw_size && size != raw_size) {
    raw_.reset(new char[raw_size]);
    raw_capacity_ = raw_size;
  }
  error_ = nullptr;
  bytes_ = raw_.get();
  if (size == raw_size) {  // stored as it is: read where they are, not copied
    bytes_ = s;
    raw_size_ = available_ = size;
    return nullptr;
  }
  if (size == 0 || size > raw_size) return error_ = "blob is not a compressed blob";
  if (BlobCodec(uint8_t(s[0])) == BlobCodec::Zstd) {
    if (raw_size > blob_max_raw_size(BlobCodec::Zstd, size)) return error_ = "blob claims an impossible size";
    raw_size_ = raw_size;
    in_at_ = 0;
    in_end_ = size + kBlobHeadroom;
    return start_zstd();
  }
  // Snappy (or a bad codec byte, which decompress_blob names): whole.
  std::string whole;
  if ((error_ = decompress_blob(s, size, raw_size, whole))) return error_;
  std::memcpy(raw_.get(), whole.data(), raw_size);
  raw_size_ = available_ = raw_size;
  return nullptr;
}

const char* BlobPrefix::start_zstd() {
  if (!dctx_ && !(dctx_ = ZSTD_createDCtx())) return error_ = "out of memory for zstd's decompression context";
  // The frame starts kBlobHeadroom bytes before the codec byte, which the
  // magic number overwrites (as decompress_blob does).
  std::memcpy(stored_.data(), kZstdFrameMagic, 4);
  if (ZSTD_isError(ZSTD_decompressBegin(static_cast<ZSTD_DCtx*>(dctx_)))) return error_ = "blob does not decompress (zstd)";
  return nullptr;
}

const char* BlobPrefix::inflate_to(size_t bytes) {
  auto* d = static_cast<ZSTD_DCtx*>(dctx_);
  while (!error_ && available_ < raw_size_ && available_ < bytes) {
    // One piece of the frame at a time: its header, a block's header, a
    // block (whose bytes come out), the checksum if any.
    const size_t piece = ZSTD_nextSrcSizeToDecompress(d);
    if (piece == 0) return error_ = "blob size does not match its reference";  // the frame ended short
    if (piece > in_end_ - in_at_) return error_ = "blob does not decompress (zstd)";  // truncated
    const size_t got = ZSTD_decompressContinue(d, raw_.get() + available_, raw_size_ - available_,
                                               stored_.data() + in_at_, piece);
    if (ZSTD_isError(got)) return error_ = "blob does not decompress (zstd)";
    in_at_ += piece;
    available_ += got;
  }
  if (!error_ && available_ == raw_size_ && raw_size_ > 0 && in_at_ != in_end_) {
    // All bytes are out: the frame must end here (its last block's
    // end and any checksum are what is left).
    while (!error_ && in_at_ < in_end_) {
      const size_t piece = ZSTD_nextSrcSizeToDecompress(d);
      if (piece == 0 || piece > in_end_ - in_at_) return error_ = "blob size does not match its reference";
      const size_t got = ZSTD_decompressContinue(d, raw_.get() + available_, 0, stored_.data() + in_at_, piece);
      if (ZSTD_isError(got) || got != 0) return error_ = "blob size does not match its reference";
      in_at_ += piece;
    }
    if (ZSTD_nextSrcSizeToDecompress(d) != 0) return error_ = "blob size does not match its reference";
  }
  return error_;
}

}  // namespace ttd
