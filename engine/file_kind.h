// How an error names what is at a path where a regular file was expected
// ("not a trace: a FIFO"), from the st_mode that stat() returned.
#pragma once
#include <sys/stat.h>

namespace ttd {

inline const char* file_kind_text(mode_t m) {
  if (S_ISDIR(m)) return "a directory";
  if (S_ISFIFO(m)) return "a FIFO";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISSOCK(m)) return "a socket";
  return "not a regular file";
}

}  // namespace ttd
