// ttd's end record (docs/formats/ucir.md, "End record"): how a UCIR file
// that ttd wrote says it is whole. The snappy framing has no end marker,
// so a file cut exactly at a chunk boundary (SIGKILL, a full disk) read as
// complete. ttd's writer puts a skippable chunk right after the stream
// identifier promising an end record, and closes the file with a second
// skippable chunk holding how the recording ended ("exited with status
// 0"). Other readers skip both (the framing format's rule for 0x80-0xfd);
// usercorn's files have neither and read as before.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace ttd::fmt::ucir {

inline constexpr uint8_t kEndPromiseChunk = 0xe0;  // payload: kEndPromise
inline constexpr uint8_t kEndRecordChunk = 0xe1;   // payload: the ending, UTF-8 text
inline constexpr std::string_view kEndPromise = "ttd: this stream ends with an end record";
inline constexpr size_t kMaxEndRecord = 4096;  // longer records are cut to this when written and read

}  // namespace ttd::fmt::ucir
