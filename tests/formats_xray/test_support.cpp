#include "test_support.h"

#include <unistd.h>

#include <atomic>
#include <filesystem>

namespace xray_test {

std::string data_dir() { return TTD_XRAY_TESTDATA; }
std::string data(const std::string& relative) { return data_dir() + "/" + relative; }

namespace {
// One directory per test process, removed when the process ends.
struct TempDir {
  std::filesystem::path path =
      std::filesystem::path(TTD_XRAY_TMPDIR) / ("run-" + std::to_string(::getpid()));
  TempDir() { std::filesystem::create_directories(path); }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};
}  // namespace

std::string temp_path(const std::string& name) {
  static TempDir dir;
  static std::atomic<int> n{0};
  return (dir.path / (std::to_string(n++) + "-" + name)).string();
}

uint64_t RecordedStep::u64(const std::string& key) const {
  const auto* v = attr(key);
  if (!v) return ~0ull;
  if (const auto* u = std::get_if<uint64_t>(v)) return *u;
  return ~0ull;
}

}  // namespace xray_test
