#include "engine/blob_codec.h"

#include "engine/index_layout.h"

#include <snappy.h>
#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <memory>

namespace ttd {

namespace {
constexpr uint64_t kZstdMaxExpansion = 512;

struct DCtxFree {
  void operator()(ZSTD_DCtx* d) const { ZSTD_freeDCtx(d); }
};
}  // namespace

uint64_t blob_max_raw_size(BlobCodec codec, uint64_t stored) {
  switch (codec) {
    case BlobCodec::Snappy:
      return stored * 22 + 64;
    case BlobCodec::Zstd:
      return stored * kZstdMaxExpansion;
  }
  return 0;
}

BlobCompressor::BlobCompressor(int zstd_level) : cctx_(ZSTD_createCCtx()), level_(zstd_level) {
  auto* c = static_cast<ZSTD_CCtx*>(cctx_);
  if (!c) return;  // out of memory: every blob gets snappy
  ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, level_);
  ZSTD_CCtx_setParameter(c, ZSTD_c_contentSizeFlag, 0);
  ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 0);
  ZSTD_CCtx_setParameter(c, ZSTD_c_dictIDFlag, 0);
}

BlobCompressor::~BlobCompressor() { ZSTD_freeCCtx(static_cast<ZSTD_CCtx*>(cctx_)); }

bool BlobCompressor::compress_snappy(const char* data, size_t n) {
  buf_.resize(1 + snappy::MaxCompressedLength(n));
  buf_[0] = char(BlobCodec::Snappy);
  size_t len = 0;
  snappy::RawCompress(data, n, buf_.data() + 1, &len);
  size_ = 1 + len;
  start_ = 0;
  return size_ < n;
}

size_t BlobCompressor::compress_blocks(const char* p, size_t n, size_t block) {
  auto* c = static_cast<ZSTD_CCtx*>(cctx_);
  ZSTD_CCtx_reset(c, ZSTD_reset_session_only);
  ZSTD_CCtx_setPledgedSrcSize(c, n);
  ZSTD_outBuffer out{buf_.data() + 3, buf_.size() - 3, 0};
  for (size_t at = 0; at < n;) {
    const size_t len = std::min(block, n - at);
    ZSTD_inBuffer in{p + at, len, 0};
    const ZSTD_EndDirective end = at + len == n ? ZSTD_e_end : ZSTD_e_flush;
    // Room for the whole frame (ZSTD_compressBound), so one call
    // consumes the input and a flush or the end completes.
    size_t left = ZSTD_compressStream2(c, &out, &in, end);
    if (ZSTD_isError(left)) return left;
    if (left != 0 || in.pos != len) return size_t(-1);
    at += len;
  }
  return out.pos;
}

bool BlobCompressor::compress(const void* data, size_t n, BlobCodec codec, int zstd_level, size_t zstd_block) {
  const char* p = static_cast<const char*>(data);
  auto* c = static_cast<ZSTD_CCtx*>(cctx_);
  if (codec == BlobCodec::Snappy || !c || n == 0) return compress_snappy(p, n);
  if (zstd_level != 0 && zstd_level != level_) {
    level_ = zstd_level;
    ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, level_);
  }
  // The frame lands 3 bytes in, so dropping its magic leaves the codec
  // byte in front of the rest.
  buf_.resize(3 + ZSTD_compressBound(n));
  size_t len = zstd_block > 0 && n > zstd_block ? compress_blocks(p, n, zstd_block)
                                                 : ZSTD_compress2(c, buf_.data() + 3, buf_.size() - 3, p, n);
  if (ZSTD_isError(len) || len < 4 || std::memcmp(buf_.data() + 3, kZstdFrameMagic, 4) != 0) return compress_snappy(p, n);
  size_ = len - 3;  // codec byte + frame without magic
  if (n > blob_max_raw_size(BlobCodec::Zstd, size_)) return compress_snappy(p, n);
  buf_[6] = char(BlobCodec::Zstd);
  start_ = 6;
  return size_ < n;
}

const char* decompress_blob(char* stored, size_t size, size_t raw_size, std::string& out) {
  if (size == 0 || size >= raw_size) return "blob is not a compressed blob";
  const auto codec = BlobCodec(uint8_t(stored[0]));
  if (codec != BlobCodec::Snappy && codec != BlobCodec::Zstd) return "blob has an unknown codec byte";
  if (raw_size > blob_max_raw_size(codec, size)) return "blob claims an impossible size";
  if (codec == BlobCodec::Snappy) {
    size_t raw = 0;
    if (!snappy::GetUncompressedLength(stored + 1, size - 1, &raw) || raw != raw_size)
      return "blob size does not match its reference";
    out.resize(raw_size);
    if (!snappy::RawUncompress(stored + 1, size - 1, out.data())) return "blob does not decompress (snappy)";
    return nullptr;
  }
  thread_local std::unique_ptr<ZSTD_DCtx, DCtxFree> dctx(ZSTD_createDCtx());
  if (!dctx) return "out of memory for zstd's decompression context";
  char* frame = stored - kBlobHeadroom;
  std::memcpy(frame, kZstdFrameMagic, 4);
  out.resize(raw_size);
  size_t got = ZSTD_decompressDCtx(dctx.get(), out.data(), raw_size, frame, size + kBlobHeadroom);
  if (ZSTD_isError(got)) return "blob does not decompress (zstd)";
  if (got != raw_size) return "blob size does not match its reference";
  return nullptr;
}

const char* open_stored_blob(char* stored, size_t size, size_t raw_size, uint32_t checksum, uint64_t offset,
                             std::string& out) {
  if (blob_checksum(stored, size, offset) != checksum) return "blob checksum mismatch";
  if (size == raw_size) {  // stored as it is
    out.assign(stored, size);
    return nullptr;
  }
  return decompress_blob(stored, size, raw_size, out);
}

}  // namespace ttd
