#include "engine/source_stamp.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <vector>

#include "engine/file_kind.h"

namespace ttd {

namespace fs = std::filesystem;

namespace {

uint64_t ns(const timespec& t) { return uint64_t(t.tv_sec) * 1000000000ull + uint64_t(t.tv_nsec); }

struct HashState {
  XXH3_state_t* h = XXH3_createState();
  HashState() { XXH3_64bits_reset(h); }
  ~HashState() { XXH3_freeState(h); }
  void add(const void* p, size_t n) { XXH3_64bits_update(h, p, n); }
  uint64_t digest() const { return XXH3_64bits_digest(h); }
};

// A directory trace's regular files, sorted by name.
std::vector<std::string> regular_files(const std::string& dir) {
  std::error_code ec;
  std::vector<std::string> names;
  for (auto& e : fs::directory_iterator(dir, ec)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  std::vector<std::string> out;
  for (auto& n : names) {
    struct stat st {};
    if (::stat((dir + "/" + n).c_str(), &st) == 0 && S_ISREG(st.st_mode)) out.push_back(n);
  }
  return out;
}

// Streams one regular file into h. O_NONBLOCK: if the file was swapped for
// a FIFO since it was stat-ed, open() must not wait for a writer.
Status hash_file(const std::string& path, HashState& h, const std::atomic<bool>* cancel) {
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return make_error(path, std::string("cannot open: ") + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return make_error(path, std::string("cannot hash the trace: ") + file_kind_text(st.st_mode));
  }
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  std::unique_ptr<uint8_t[]> buf(new uint8_t[1 << 20]);
  for (;;) {
    if (cancel && cancel->load(std::memory_order_relaxed)) {
      ::close(fd);
      return make_error(path, "hashing cancelled");
    }
    ssize_t n = ::read(fd, buf.get(), 1 << 20);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int e = errno;
      ::close(fd);
      return make_error(path, std::string("cannot read: ") + std::strerror(e));
    }
    if (n == 0) break;
    h.add(buf.get(), size_t(n));
  }
  ::close(fd);
  return {};
}

}  // namespace

Result<SourceStamp> stamp_source(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return make_error(path, std::string("cannot open: ") + std::strerror(errno));
  SourceStamp s;
  if (S_ISDIR(st.st_mode)) {
    HashState times, ids;
    for (auto& n : regular_files(path)) {
      struct stat fst {};
      if (::stat((path + "/" + n).c_str(), &fst) != 0) continue;
      times.add(n.data(), n.size());
      ids.add(n.data(), n.size());
      uint64_t t[2] = {uint64_t(fst.st_size), ns(fst.st_mtim)};
      times.add(t, sizeof t);
      uint64_t id[3] = {uint64_t(fst.st_dev), uint64_t(fst.st_ino), ns(fst.st_ctim)};
      ids.add(id, sizeof id);
      s.size += uint64_t(fst.st_size);
    }
    s.mtime_ns = times.digest();
    s.identity = ids.digest();
    return s;
  }
  if (!S_ISREG(st.st_mode))
    return make_error(path, std::string("not a trace: ") + file_kind_text(st.st_mode) + " (a trace is a regular file or a directory)");
  s.size = uint64_t(st.st_size);
  s.mtime_ns = ns(st.st_mtim);
  uint64_t id[3] = {uint64_t(st.st_dev), uint64_t(st.st_ino), ns(st.st_ctim)};
  s.identity = XXH3_64bits(id, sizeof id);
  return s;
}

Result<uint64_t> hash_source_content(const std::string& path, const std::atomic<bool>* cancel) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return make_error(path, std::string("cannot open: ") + std::strerror(errno));
  HashState h;
  if (S_ISDIR(st.st_mode)) {
    for (auto& n : regular_files(path)) {
      h.add(n.data(), n.size() + 1);  // with its NUL: names and contents cannot run together
      if (auto s = hash_file(path + "/" + n, h, cancel); !s) return s.error();
    }
  } else if (auto s = hash_file(path, h, cancel); !s) {
    return s.error();
  }
  uint64_t d = h.digest();
  return d ? d : 1;  // 0 means "not computed"
}

Freshness judge_freshness(const SourceStamp& recorded, const SourceStamp& now) {
  if (recorded.size != now.size || recorded.mtime_ns != now.mtime_ns) return Freshness::Stale;
  if (recorded.identity == now.identity) return Freshness::Fresh;
  return recorded.content_hash ? Freshness::ContentCheckNeeded : Freshness::Stale;
}

}  // namespace ttd
