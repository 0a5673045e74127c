#include "tools/recorder/guest_dir_listing.h"

#include <dirent.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace ttd::rec {

int64_t GuestDirListing::read(uint64_t len, std::vector<uint8_t>& out) {
  out.clear();
  while (pos_ < entries_.size()) {
    const GuestDirEntry& e = entries_[pos_];
    // struct linux_dirent64: d_ino, d_off, d_reclen, d_type, the name and
    // its NUL, padded to 8 bytes (fs/readdir.c).
    const size_t reclen = (19 + e.name.size() + 1 + 7) & ~size_t(7);
    if (out.size() + reclen > len) {
      if (out.empty()) return -EINVAL;
      break;
    }
    const size_t at = out.size();
    out.resize(at + reclen, 0);
    const int64_t next = int64_t(pos_ + 1);
    const uint16_t rl = uint16_t(reclen);
    std::memcpy(out.data() + at, &e.ino, 8);
    std::memcpy(out.data() + at + 8, &next, 8);
    std::memcpy(out.data() + at + 16, &rl, 2);
    out[at + 18] = e.type;
    std::memcpy(out.data() + at + 19, e.name.data(), e.name.size());
    ++pos_;
  }
  return int64_t(out.size());
}

int64_t GuestDirListing::seek(int64_t offset, int whence) {
  if (whence == SEEK_CUR && offset == 0) return int64_t(pos_);
  if (whence != SEEK_SET || offset < 0) return -EINVAL;
  pos_ = size_t(offset);  // past the end reads nothing, as a directory does
  return offset;
}

std::vector<GuestDirEntry> proc_fd_entries(const std::vector<int>& fds) {
  std::vector<GuestDirEntry> out = {{".", 1, DT_DIR}, {"..", 2, DT_DIR}};
  for (int fd : fds) out.push_back({std::to_string(fd), 1000 + uint64_t(fd), DT_LNK});
  return out;
}

std::vector<GuestDirEntry> proc_root_entries(uint64_t host_pid, uint64_t guest_pid) {
  std::vector<GuestDirEntry> out;
  DIR* d = ::opendir("/proc");
  if (!d) return {{".", 1, DT_DIR}, {"..", 2, DT_DIR}};
  const std::string host = std::to_string(host_pid), guest = std::to_string(guest_pid);
  while (const dirent* e = ::readdir(d)) {
    if (e->d_name == guest) continue;
    out.push_back({e->d_name == host ? guest : std::string(e->d_name), uint64_t(e->d_ino), e->d_type});
  }
  ::closedir(d);
  return out;
}

std::vector<GuestDirEntry> proc_task_entries(const std::vector<uint64_t>& tids) {
  std::vector<GuestDirEntry> out = {{".", 1, DT_DIR}, {"..", 2, DT_DIR}};
  for (uint64_t tid : tids) out.push_back({std::to_string(tid), 1000 + tid, DT_DIR});
  return out;
}

}  // namespace ttd::rec
