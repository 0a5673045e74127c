#include "engine/index_location.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include <cerrno>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "engine/file_kind.h"
#include "engine/index_layout.h"

namespace ttd {

namespace fs = std::filesystem;

namespace {

fs::path absolute_trace(const std::string& trace) {
  std::error_code ec;
  fs::path p = fs::absolute(trace, ec);
  return (ec ? fs::path(trace) : p).lexically_normal();
}

// What is at an index path.
enum class Found { Nothing, Empty, Foreign, OurIndex, OurIndexOfOtherTrace, NotRegular, Unreadable };
struct Inspection {
  Found what = Found::Nothing;
  std::string detail;
};

Inspection inspect(const std::string& path, uint64_t trace_hash) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return {Found::Nothing, ""};
    return {Found::Unreadable, std::strerror(errno)};
  }
  if (!S_ISREG(st.st_mode)) return {Found::NotRegular, file_kind_text(st.st_mode)};
  if (st.st_size == 0) return {Found::Empty, ""};
  // O_NONBLOCK: the path may have become a FIFO since the stat.
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return {Found::Unreadable, std::strerror(errno)};
  struct stat fst {};
  IndexHeader h{};
  bool regular = ::fstat(fd, &fst) == 0 && S_ISREG(fst.st_mode);
  ssize_t n = regular ? ::pread(fd, &h, sizeof h, 0) : 0;
  ::close(fd);
  if (!regular) return {Found::NotRegular, file_kind_text(fst.st_mode)};
  if (n < ssize_t(sizeof h.magic) || std::memcmp(h.magic, kIndexMagic, sizeof h.magic) != 0)
    return {Found::Foreign, ""};
  // Only a current, intact header says which trace it belongs to; an older
  // version or a damaged header is an index to rebuild.
  if (n == ssize_t(sizeof h) && h.version == kIndexVersion &&
      XXH3_64bits(&h, offsetof(IndexHeader, header_checksum)) == h.header_checksum &&
      h.source_path_hash != trace_hash)
    return {Found::OurIndexOfOtherTrace, ""};
  return {Found::OurIndex, ""};
}

}  // namespace

uint64_t trace_path_hash(const std::string& trace) {
  std::string p = absolute_trace(trace).string();
  return XXH3_64bits(p.data(), p.size());
}

std::string index_path_beside(const std::string& trace) { return absolute_trace(trace).string() + ".ttdidx"; }

std::string index_path_in_cache(const std::string& trace, const std::string& cache_dir) {
  fs::path p = fs::absolute(trace);  // as before version 8: existing cache entries keep their names
  std::string cache = cache_dir;
  if (cache.empty()) {
    const char* xdg = std::getenv("XDG_CACHE_HOME");
    const char* home = std::getenv("HOME");
    cache = xdg && *xdg ? std::string(xdg) + "/ttd" : std::string(home ? home : "/tmp") + "/.cache/ttd";
  }
  std::error_code ec;
  fs::create_directories(cache, ec);
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", (unsigned long long)XXH3_64bits(p.c_str(), p.string().size()));
  return cache + "/" + p.filename().string() + "-" + hex + ".ttdidx";
}

bool folder_writable(const std::string& folder) { return ::access(folder.c_str(), W_OK) == 0; }

Status check_index_replaceable(const std::string& index_path, uint64_t trace_hash, bool only_this_trace) {
  Inspection in = inspect(index_path, trace_hash);
  switch (in.what) {
    case Found::Nothing:
    case Found::Empty:
    case Found::OurIndex:
      return {};
    case Found::OurIndexOfOtherTrace:
      if (!only_this_trace) return {};
      return make_error(index_path,
                        "refusing to replace it: it is the index of another trace (built from another path); "
                        "remove it or choose another --index");
    case Found::NotRegular:
      return make_error(index_path, std::string("refusing to write the index there: it is ") + in.detail +
                                        ", not a regular file");
    case Found::Foreign:
      return make_error(index_path, "refusing to replace it: it is not a ttd index (no TTDINDEX magic); "
                                    "remove it or choose another --index");
    case Found::Unreadable:
      return make_error(index_path, "refusing to replace it: cannot read it (" + in.detail + ")");
  }
  return {};
}

void discard_index(const std::string& index_path) {
  Inspection in = inspect(index_path, 0);
  if (in.what == Found::OurIndex || in.what == Found::OurIndexOfOtherTrace) ::unlink(index_path.c_str());
}

}  // namespace ttd
