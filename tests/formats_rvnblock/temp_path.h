// Unique scratch file names for tests that write databases.
#pragma once
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <string>

namespace ttd::test {

inline std::string temp_path(const std::string& name) {
  static std::atomic<int> counter{0};
  auto dir = std::filesystem::temp_directory_path();
  return (dir / ("ttd_rvnblock_" + std::to_string(getpid()) + "_" + std::to_string(counter++) + "_" + name))
      .string();
}

}  // namespace ttd::test
