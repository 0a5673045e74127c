#include "formats/xray/fdr_producer.h"

#include <algorithm>
#include <limits>

#include "formats/xray/fdr_layout.h"

namespace ttd::fmt::xray {

namespace {

std::string hex_byte(uint8_t b) {
  const char* d = "0123456789abcdef";
  return std::string("0x") + d[b >> 4] + d[b & 15];
}

uint64_t sat_add(uint64_t a, uint64_t b) {
  return b > std::numeric_limits<uint64_t>::max() - a ? std::numeric_limits<uint64_t>::max() : a + b;
}

}  // namespace

FdrProducer::Next FdrProducer::fail(uint64_t off, const std::string& what) {
  return fail(make_error_at(in_.path(), off, what));
}

FdrProducer::Next FdrProducer::fail(Error e) {
  error_ = std::move(e);
  return Next::Failed;
}

FdrProducer::Next FdrProducer::start_buffer(FdrRecord& r) {
  uint64_t off = in_.offset();
  if (in_.remaining() < kMetadataRecordSize)
    return fail(off, std::to_string(in_.remaining()) +
                         " trailing bytes are too few for a buffer's first record (file truncated?)");
  auto view = in_.view(off, kMetadataRecordSize);
  if (!view) return fail(view.error());
  const uint8_t* p = *view;
  ++buffers_;
  typed_ = 0;
  thread_ = 0;
  buf_start_ = off;
  in_buffer_ = true;
  if (h_.version == 1) {
    if (p[0] != 0x01) return fail(off, "expected a NewBuffer record to start a buffer, found byte " + hex_byte(p[0]));
    // compiler-rt writes whole fixed-size buffers in version 1 and says how
    // big in the header; LLVM's writer leaves the size 0 and ends each
    // buffer right after its EndOfBuffer.
    bounded_ = h_.buffer_size != 0;
    buf_end_ = bounded_ ? sat_add(off, h_.buffer_size) : std::numeric_limits<uint64_t>::max();
    return next_slow(r);
  }
  if (p[0] != 0x0f)
    return fail(off, "expected a BufferExtents record to start a buffer, found byte " + hex_byte(p[0]) +
                         (buffers_ > 1 ? " (the previous buffer's extents may be wrong)" : ""));
  uint32_t payload = 0;
  if (auto s = decode_metadata(p, off, h_.version, r, payload, in_.path()); !s) return fail(s.error());
  bounded_ = true;
  buf_end_ = sat_add(off + kMetadataRecordSize, r.value);
  in_.skip(kMetadataRecordSize);
  return Next::Record;
}

// The buffer is done. A buffer that held typed events and ended cleanly may
// still have lost its tail to the runtime bug: report the suspicion once.
bool FdrProducer::end_buffer(FdrRecord& r) {
  in_buffer_ = false;
  if (typed_ == 0 || h_.version < 2) return false;
  Recovery rec;
  rec.buffer_offset = buf_start_;
  rec.buffer_end = buf_end_;
  rec.offset = buf_end_;
  rec.lost = uint64_t(typed_) * kMetadataRecordSize;
  rec.certain = false;
  rec.thread = thread_;
  rec.typed_events = typed_;
  rec.runtime_writer = h_.buffer_size != 0;  // compiler-rt fills it in, LLVM's writer does not
  recoveries_.push_back(rec);
  r = FdrRecord{};
  r.kind = RecordKind::Skipped;
  r.offset = buf_end_;
  r.lost = rec.lost;
  r.certain = false;
  return true;
}

// The record at `off` needs `need` bytes but the buffer (or file) ends first.
FdrProducer::Next FdrProducer::cut_off(FdrRecord& r, uint64_t off, uint8_t first, uint64_t need) {
  uint64_t stop = std::min(buf_end_, in_.file_size());
  std::string what = record_name_from_first_byte(first);
  if (stop < buf_end_)
    return fail(off, "file truncated: the " + what + " here needs " + std::to_string(need) +
                         " bytes but the file ends at offset " + std::to_string(in_.file_size()) +
                         ", inside the buffer at offset " + std::to_string(buf_start_) + " that ends at " +
                         std::to_string(buf_end_));
  bool typed_here = is_metadata(first) && metadata_kind(first) == kTypedEvent;
  uint32_t typed = typed_ + (typed_here ? 1 : 0);
  if (h_.version < 2 || typed == 0)
    return fail(off, "the " + what + " here needs " + std::to_string(need) + " bytes but its buffer (at offset " +
                         std::to_string(buf_start_) + ") ends at offset " + std::to_string(buf_end_) +
                         " (wrong buffer size or corrupt record)");
  Recovery rec;
  rec.buffer_offset = buf_start_;
  rec.buffer_end = buf_end_;
  rec.offset = off;
  rec.skipped = stop - off;
  rec.lost = uint64_t(typed) * kMetadataRecordSize;
  rec.certain = true;
  rec.thread = thread_;
  rec.typed_events = typed;
  rec.cut_byte = first;
  rec.runtime_writer = h_.buffer_size != 0;
  recoveries_.push_back(rec);
  in_.seek(stop);
  in_buffer_ = false;
  r = FdrRecord{};
  r.kind = RecordKind::Skipped;
  r.offset = off;
  r.skipped = rec.skipped;
  r.lost = rec.lost;
  r.certain = true;
  return Next::Record;
}

FdrProducer::Next FdrProducer::next_slow(FdrRecord& r) {
  for (;;) {
    if (!in_buffer_) {
      if (in_.at_end()) return Next::End;
      return start_buffer(r);
    }
    uint64_t off = in_.offset();
    if (off >= buf_end_ || (!bounded_ && in_.at_end())) {
      if (!bounded_) unterminated_ = buf_start_;
      if (end_buffer(r)) return Next::Record;
      continue;
    }
    if (in_.at_end())
      return fail(off, "file truncated: it ends inside the buffer at offset " + std::to_string(buf_start_) +
                           ", which declares its end at offset " + std::to_string(buf_end_));
    auto view = in_.view(off, 1);
    if (!view) return fail(view.error());
    uint8_t first = (*view)[0];
    uint64_t avail = std::min(buf_end_, in_.file_size()) - off;
    uint32_t need = is_metadata(first) ? kMetadataRecordSize : kFunctionRecordSize;
    if (need > avail) return cut_off(r, off, first, need);
    view = in_.view(off, need);
    if (!view) return fail(view.error());
    const uint8_t* p = *view;
    if (!is_metadata(first)) {
      if (auto s = decode_function(p, off, r, in_.path()); !s) return fail(s.error());
      in_.skip(kFunctionRecordSize);
      return Next::Record;
    }
    uint32_t payload = 0;
    if (auto s = decode_metadata(p, off, h_.version, r, payload, in_.path()); !s) return fail(s.error());
    switch (r.kind) {
      case RecordKind::BufferExtents:
        return fail(off, "BufferExtents record inside the buffer that starts at offset " + std::to_string(buf_start_) +
                             " and ends at " + std::to_string(buf_end_));
      case RecordKind::NewBuffer:
        thread_ = uint64_t(uint32_t(r.id));
        break;
      case RecordKind::EndOfBuffer:
        // The rest of a version 1 buffer is garbage: jump to the next one.
        // The runtime writes whole buffers, so a file that ends inside the
        // padding is a truncated copy (and maybe lost later buffers).
        if (bounded_ && buf_end_ > in_.file_size())
          return fail(in_.file_size(), "file truncated: it ends at offset " + std::to_string(in_.file_size()) +
                                      " inside the padding of the version 1 buffer at offset " +
                                      std::to_string(buf_start_) + ", which the header's buffer size (" +
                                      std::to_string(h_.buffer_size) + ") ends at offset " +
                                      std::to_string(buf_end_));
        in_.seek(bounded_ ? buf_end_ : off + kMetadataRecordSize);
        in_buffer_ = false;
        return Next::Record;
      default:
        break;
    }
    if (payload) {
      if (r.size > avail) return cut_off(r, off, first, r.size);
      view = in_.view(off, r.size);
      if (!view) return fail(view.error());
      p = *view;
      r.payload = {p + kMetadataRecordSize, payload};
      // Counted only once whole: cut_off counts a cut-off marker itself.
      if (r.kind == RecordKind::TypedEvent) ++typed_;
    }
    in_.skip(r.size);
    return Next::Record;
  }
}

}  // namespace ttd::fmt::xray
