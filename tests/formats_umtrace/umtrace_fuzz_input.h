// The fuzz input of fuzz_umtrace: a whole trace directory in one byte
// string, so libFuzzer can mutate every table. Layout: one little-endian
// u32 size per file of kFuzzFiles (0xffffffff: the file is absent), then
// the files' bytes in that order; sizes are cut to the bytes there are.
#pragma once
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <span>
#include <string>
#include <vector>

namespace ttd::test {

inline constexpr const char* kFuzzFiles[] = {
    "exec.vtable",  "exec.offsets",  "exec.prev_next.column", "ins.itable",          "syscall.vtable", "syscall.offsets",
    "module.itable", "thread.itable", "context_map.itable",    "address_space.itable", "trace.xml"};
inline constexpr size_t kFuzzFileCount = sizeof(kFuzzFiles) / sizeof(kFuzzFiles[0]);
inline constexpr uint32_t kFuzzAbsent = 0xffffffffu;

inline std::vector<uint8_t> pack_trace_dir(const std::string& dir) {
  std::vector<uint8_t> head, body;
  for (const char* f : kFuzzFiles) {
    std::ifstream in(dir + "/" + f, std::ios::binary);
    uint32_t size = kFuzzAbsent;
    if (in) {
      std::vector<uint8_t> b((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      size = uint32_t(b.size());
      body.insert(body.end(), b.begin(), b.end());
    }
    for (int i = 0; i < 4; ++i) head.push_back(uint8_t(size >> (8 * i)));
  }
  head.insert(head.end(), body.begin(), body.end());
  return head;
}

// Writes the files of input into dir (which exists), removing absent ones.
inline void unpack_to_dir(std::span<const uint8_t> input, const std::string& dir) {
  size_t at = 4 * kFuzzFileCount;
  for (size_t i = 0; i < kFuzzFileCount; ++i) {
    uint32_t size = 0;
    if (input.size() >= 4 * (i + 1)) std::memcpy(&size, input.data() + 4 * i, 4);
    const std::string path = dir + "/" + kFuzzFiles[i];
    if (size == kFuzzAbsent) {
      ::unlink(path.c_str());
      continue;
    }
    const size_t n = at < input.size() ? std::min<size_t>(size, input.size() - at) : 0;
    if (std::FILE* f = std::fopen(path.c_str(), "wb")) {
      if (n) std::fwrite(input.data() + at, 1, n, f);
      std::fclose(f);
    }
    at += n;
  }
}

}  // namespace ttd::test
