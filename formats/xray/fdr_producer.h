// Produces the records of an FDR log one at a time, buffer by buffer, from
// a FileWindow positioned just after the file header (LLVM's
// FileBasedRecordProducer, with the buffer bookkeeping made strict and the
// compiler-rt typed-event bug recovered from).
//
// Buffers: version 1 buffers start with NewBuffer and end with EndOfBuffer
// or after the header's buffer size; from version 2 each buffer starts with
// a BufferExtents record counting the bytes that follow it, and the next
// buffer starts right after those bytes.
//
// The compiler-rt FDR runtime (seen in clang 14 and 16) does not count the
// 16-byte marker of a typed event in BufferExtents, and writes only
// BufferExtents bytes when flushing. So every typed event costs the file the
// last 16 bytes of its buffer. When a record is cut off at the end of such a
// buffer, the producer skips the partial bytes, goes on with the next buffer
// and yields a RecordKind::Skipped record plus a Recovery saying exactly
// which bytes were skipped and how many were lost. When such a buffer ends
// cleanly the loss cannot be proven from the file; a Skipped record with
// certain = false reports the suspicion. Any other inconsistency is an error
// naming the file offset.
#pragma once
#include <cstdint>
#include <vector>

#include "formats/common/file_window.h"
#include "state/byte_order.h"  // load_le32: XRay logs are little-endian
#include "formats/xray/fdr_record.h"
#include "formats/xray/xray_header.h"

namespace ttd::fmt::xray {

class FdrProducer {
 public:
  FdrProducer(FileWindow& in, const FileHeader& header) : in_(in), h_(header) {}

  enum class Next : uint8_t { Record, End, Failed };

  // Reads the next record into r. Failed leaves the reason in error(); the
  // producer must not be used after that. The common case -- a function
  // record inside the current buffer, in the window -- is inline: logs are
  // mostly made of them.
  Next next(FdrRecord& r) {
    if (in_buffer_) {
      uint64_t off = in_.offset();
      if (off + kFunctionBytes <= buf_end_ && in_.available() >= kFunctionBytes) {
        const uint8_t* p = in_.data();
        if (!(p[0] & 1u)) {
          uint32_t word = load_le32(p);
          uint32_t action = (word >> 1) & 7u;
          if (action <= 3) {
            r.kind = RecordKind::Function;
            r.offset = off;
            r.size = kFunctionBytes;
            r.action = FunctionAction(action);
            r.func_id = word >> 4;
            r.delta = load_le32(p + 4);
            in_.consume(kFunctionBytes);
            return Next::Record;
          }
        }
      }
    }
    return next_slow(r);
  }
  const Error& error() const { return error_; }

  const std::vector<Recovery>& recoveries() const { return recoveries_; }
  // Version 1 without a header buffer size (LLVM's writer): buffers end at
  // EndOfBuffer only, so one the file ends inside without it may be a copy
  // cut at a record boundary. Offset of that buffer, or -1.
  uint64_t unterminated_buffer() const { return unterminated_; }
  uint64_t buffers() const { return buffers_; }

 private:
  static constexpr uint32_t kFunctionBytes = 8;
  Next next_slow(FdrRecord& r);
  Next start_buffer(FdrRecord& r);
  bool end_buffer(FdrRecord& r);
  Next cut_off(FdrRecord& r, uint64_t off, uint8_t first, uint64_t need);
  Next fail(uint64_t off, const std::string& what);
  Next fail(Error e);

  FileWindow& in_;
  FileHeader h_;
  bool in_buffer_ = false;
  uint64_t buf_start_ = 0;  // offset of the buffer's first record (BufferExtents from v2)
  uint64_t buf_end_ = 0;    // end offset of the buffer's data (may lie past the file end)
  bool bounded_ = false;    // v1 with a zero buffer size: buffers end at EndOfBuffer only
  uint32_t typed_ = 0;      // typed events seen in the current buffer
  uint64_t thread_ = 0;     // thread of the current buffer, for reports
  uint64_t buffers_ = 0;
  uint64_t unterminated_ = ~uint64_t(0);
  std::vector<Recovery> recoveries_;
  Error error_;
};

}  // namespace ttd::fmt::xray
