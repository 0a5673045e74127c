// Recovers a keyframe mapping whose data usercorn trimmed (ucir_keyframe.h)
// from the mapping's backing file, named by OP_MEM_MAP with a file offset
// and length. The trace is hostile input and so is the name in it:
//  - only a regular file is opened (stat before open, fstat after);
//  - at most min(file length, mapping size) bytes from the file offset are
//    read, and never more than the caller's remaining budget;
//  - nothing from the file is used: the file only says WHERE the trimmed
//    data sits. The mapping's contents per mmap are the file's bytes from
//    the offset, then zeros; when those contents with zero bytes trimmed
//    at both ends equal the trace's trimmed write byte for byte, the write
//    belongs at base + (the count of leading zeros). Anything else (a
//    missing, shorter, special or different file) leaves it unknown.
#pragma once
#include <cstdint>
#include <span>
#include <string>

namespace ttd::fmt::ucir {

// Bytes one keyframe may read from backing files in all (a trace could name
// the same large file for thousands of mappings).
constexpr uint64_t kBackingReadBudget = uint64_t(1) << 30;

struct BackingMatch {
  bool agrees = false;
  uint64_t lead = 0;   // when agrees: leading zero bytes the trace trimmed
  std::string reason;  // when not: why, for `ttd info`
};

// `budget` is decremented by the bytes read.
BackingMatch match_backing_file(const std::string& file, uint64_t file_off, uint64_t file_len, uint64_t map_size,
                                std::span<const uint8_t> trimmed, uint64_t& budget);

}  // namespace ttd::fmt::ucir
