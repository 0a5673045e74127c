// A read-only memory mapping of one trace file, for the tables read by
// random access (instructions, system calls, the small tables, probes of the
// execution table): only the pages decoded are touched, and the kernel drops
// them again under pressure. Every decoder checks bounds against size()
// before reading. (The full pass over the execution table uses
// the formats' FileWindow, formats/common/file_window.h, instead.)
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "state/error.h"

namespace ttd::fmt::umtrace {

class MappedFile {
 public:
  // Maps the whole file; an empty file maps to size 0 and data() == nullptr.
  static Result<std::unique_ptr<MappedFile>> open(const std::string& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const uint8_t* data() const { return data_; }
  uint64_t size() const { return size_; }
  const std::string& path() const { return path_; }

  // True if [offset, offset + length) lies inside the file (overflow-safe).
  bool contains(uint64_t offset, uint64_t length) const { return offset <= size_ && length <= size_ - offset; }
  Error error_at(uint64_t offset, std::string message) const { return make_error_at(path_, offset, std::move(message)); }

 private:
  MappedFile(std::string path, const uint8_t* data, uint64_t size) : path_(std::move(path)), data_(data), size_(size) {}
  std::string path_;
  const uint8_t* data_ = nullptr;
  uint64_t size_ = 0;
};

// Joins a trace directory and a table file name.
std::string table_path(const std::string& dir, const char* file);
// True if a regular file exists at path.
bool file_exists(const std::string& path);

}  // namespace ttd::fmt::umtrace
