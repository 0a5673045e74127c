// How the TT6/TT6E reader and the FULL reader walk a file: the window they
// parse records in place from, how often they report progress, and how
// their errors name what they expected and show a longword.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

namespace ttd::fmt::tt6 {

// Report progress (and allow cancelling) about this often.
constexpr uint64_t kProgressBytes = uint64_t(16) << 20;
// Records are parsed in place from a window this big (the escape records,
// at most 256 KiB, always fit).
constexpr size_t kWindow = size_t(8) << 20;
inline constexpr const char* kExpected = "a TT6 trace file";

inline std::string hex32(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", v);
  return buf;
}

}  // namespace ttd::fmt::tt6
