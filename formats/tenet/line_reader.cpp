#include "formats/tenet/line_reader.h"

#include <cstring>

namespace ttd::fmt::tenet {

Result<std::unique_ptr<LineReader>> LineReader::open(const std::string& path, size_t buffer_size) {
  auto in = FileWindow::open(path, buffer_size, "a Tenet trace file");
  if (!in) return in.error();
  return std::unique_ptr<LineReader>(new LineReader(std::move(*in)));
}

Result<bool> LineReader::next(std::string_view& line) {
  size_t scanned = 0;  // bytes at data() already searched for '\n'
  for (;;) {
    const char* start = reinterpret_cast<const char*>(in_.data());
    const size_t have = in_.available();
    const void* nl = std::memchr(start + scanned, '\n', have - scanned);
    if (nl) {
      const size_t len = size_t(static_cast<const char*>(nl) - start);
      line_offset_ = in_.offset();
      line_terminated_ = true;
      ++line_number_;
      in_.consume(len + 1);
      line = std::string_view(start, len > 0 && start[len - 1] == '\r' ? len - 1 : len);
      return true;
    }
    scanned = have;
    if (have >= kMaxLine)
      return make_error_at(in_.path(), in_.offset(),
                           "line longer than " + std::to_string(kMaxLine >> 20) + " MiB: not a Tenet trace");
    auto more = in_.ensure(have + 1);
    if (!more) return more.error();
    if (!more.value()) {
      // The end of the file: what is left is a last line without '\n'.
      if (in_.available() == 0) return false;
      const size_t len = in_.available();
      start = reinterpret_cast<const char*>(in_.data());
      line_offset_ = in_.offset();
      line_terminated_ = false;
      ++line_number_;
      in_.consume(len);
      line = std::string_view(start, len > 0 && start[len - 1] == '\r' ? len - 1 : len);
      return true;
    }
  }
}

}  // namespace ttd::fmt::tenet
