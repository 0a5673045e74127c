#include "test_support.h"

#include <unistd.h>

#include <atomic>
#include <filesystem>

namespace xray_test {

std::string data_dir() { return TTD_XRAY_TESTDATA; }
std::string data(const std::string& relative) { return data_dir() + "/" + relative; }

std::string temp_path(const std::string& name) {
  static std::atomic<int> n{0};
  auto dir = std::filesystem::path(TTD_XRAY_TMPDIR);
  std::filesystem::create_directories(dir);
  return (dir / (std::to_string(::getpid()) + "-" + std::to_string(n++) + "-" + name)).string();
}

uint64_t RecordedStep::u64(const std::string& key) const {
  const auto* v = attr(key);
  if (!v) return ~0ull;
  if (const auto* u = std::get_if<uint64_t>(v)) return *u;
  return ~0ull;
}

}  // namespace xray_test
