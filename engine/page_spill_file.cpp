#include "engine/page_spill_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "state/page_pool.h"

namespace ttd {

PageSpillFile::~PageSpillFile() {
  if (fd_ >= 0) ::close(fd_);
}

Status PageSpillFile::open_file() {
  std::string tmpl = (dir_.empty() ? std::string(".") : dir_) + "/ttd-build-spill.XXXXXX";
  int fd = ::mkostemp(tmpl.data(), O_CLOEXEC);
  if (fd < 0) return make_error(tmpl, std::string("cannot create the build's page spill file: ") + std::strerror(errno));
  // Unlinked at once: no build, however it ends, leaves it behind.
  ::unlink(tmpl.c_str());
  fd_ = fd;
  name_ = tmpl + " (unlinked)";
  return {};
}

Result<uint32_t> PageSpillFile::write(const Page& page) {
  if (fd_ < 0)
    if (auto s = open_file(); !s) return s.error();
  uint32_t slot = slots_;
  if (!free_.empty()) slot = free_.back();
  const off_t at = off_t(slot) * off_t(sizeof(Page));
  size_t done = 0;
  while (done < sizeof(Page)) {
    ssize_t n = ::pwrite(fd_, reinterpret_cast<const uint8_t*>(&page) + done, sizeof(Page) - done, at + off_t(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int e = n < 0 ? errno : ENOSPC;
      return make_error(name_, std::string("cannot spill a page at offset ") + std::to_string(at) + ": " +
                                   std::strerror(e));
    }
    done += size_t(n);
  }
  if (slot == slots_)
    ++slots_;
  else
    free_.pop_back();
  return slot;
}

Result<std::shared_ptr<Page>> PageSpillFile::take(uint32_t slot) {
  alignas(64) static thread_local uint8_t buf[sizeof(Page)];
  const off_t at = off_t(slot) * off_t(sizeof(Page));
  size_t done = 0;
  while (done < sizeof(Page)) {
    ssize_t n = ::pread(fd_, buf + done, sizeof(Page) - done, at + off_t(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      return make_error(name_, std::string("cannot read a spilled page back at offset ") + std::to_string(at) + ": " +
                                   (n < 0 ? std::strerror(errno) : "the file is short"));
    done += size_t(n);
  }
  free_.push_back(slot);
  return make_page_from_bytes(buf);
}

std::string spill_dir_for(const std::string& index_path) {
  if (const char* d = std::getenv("TTD_BUILD_SPILL_DIR"); d && *d) return d;
  std::string dir = std::filesystem::path(index_path).parent_path().string();
  return dir.empty() ? "." : dir;
}

}  // namespace ttd
