// context_map.itable: where each register lies in a context dump, for
// 32-bit and 64-bit code, plus each register's textual name, common name
// and effective largest enclosing register. Register ids are XED register
// enum values of the XED version that made the trace; we never interpret
// the numbers themselves, only the names this table gives them (ERRATA).
// The file has no common table header (ERRATA) and is small (17 KiB), so it
// is read into memory once.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "state/error.h"

namespace ttd::fmt::umtrace {

struct ContextRegInfo {
  uint16_t offset = 0xffff;  // in the dump, 0xffff if not part of this mode's context
  uint8_t size = 0;          // bytes in the dump, 0 if not part of it
  int16_t eff_largest = -1;  // effective largest enclosing register id
  bool in_dump() const { return offset != 0xffff && size != 0; }
};

class ContextMap {
 public:
  static constexpr uint16_t kEntries = 512;

  // Reads and checks the file: names are terminated, every in-context
  // register lies inside the dump, every id it mentions is a table entry.
  static Result<ContextMap> read(const std::string& path);

  const std::string& path() const { return path_; }
  uint16_t dump_size() const { return dump_size_; }
  uint16_t elem_count() const { return elem_count_; }
  // Lowercase register name ("" for unused entries).
  const std::string& name(uint16_t id) const { return names_[id]; }
  int16_t common_name(uint16_t id) const { return common_[id]; }
  const ContextRegInfo& info(uint16_t id, bool mode64) const { return (mode64 ? map64_ : map32_)[id]; }
  // Register id by (case-insensitive) name, or -1.
  int find(std::string_view name) const;

 private:
  std::string path_;
  uint16_t dump_size_ = 0, elem_count_ = 0;
  std::vector<std::string> names_ = std::vector<std::string>(kEntries);
  std::array<int16_t, kEntries> common_{};
  std::array<ContextRegInfo, kEntries> map32_{}, map64_{};
};

}  // namespace ttd::fmt::umtrace
