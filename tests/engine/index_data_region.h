// Two index builds compared byte for byte: the bytes between an index's
// header and its directory (the directory's head records the build time,
// so equal data give equal regions), built from a reader into a
// temporary file that is removed again.
#pragma once
#include <doctest/doctest.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "engine/index_builder.h"
#include "engine/index_layout.h"
#include "formats/common/trace_reader.h"

namespace ttd::test {

// A path in the temp directory, unique to this process and `tag`.
inline std::string temp_index_path(const std::string& tag) {
  return (std::filesystem::temp_directory_path() / ("ttd-index-" + std::to_string(::getpid()) + "-" + tag)).string();
}

// The data region [header end, directory) of the index at `path`, which
// is removed.
inline std::string index_data_region(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::string all{std::istreambuf_iterator<char>(f), {}};
  std::remove(path.c_str());
  REQUIRE(all.size() >= kIndexHeaderSize);
  IndexHeader h;
  std::memcpy(&h, all.data(), sizeof h);
  REQUIRE(h.dir_offset <= all.size());
  return all.substr(kIndexHeaderSize, h.dir_offset - kIndexHeaderSize);
}

// Builds `reader`'s trace into `path` (fixed stamp, keyframe interval 64)
// and returns the index's data region; removes `path`.
inline std::string built_data_region(fmt::TraceReader& reader, const std::string& path) {
  {
    IndexBuilder b(path, SourceStamp{1, 2, 3, 4}, 5, 64);
    REQUIRE(reader.read(b, {}).ok());
    REQUIRE(b.finish(std::chrono::steady_clock::now()).ok());
  }
  return index_data_region(path);
}

}  // namespace ttd::test
