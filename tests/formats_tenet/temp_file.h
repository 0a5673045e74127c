// Scratch files for tests that hand a reader a path.
#pragma once
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

namespace ttd::test {

class TempFile {
 public:
  explicit TempFile(const std::string& contents, const std::string& suffix = ".tenet") {
    static std::atomic<int> counter{0};
    path_ = (std::filesystem::temp_directory_path() /
             ("ttd_tenet_" + std::to_string(getpid()) + "_" + std::to_string(counter++) + suffix))
                .string();
    std::ofstream(path_, std::ios::binary) << contents;
  }
  ~TempFile() { std::remove(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace ttd::test
