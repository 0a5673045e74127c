// syscall.vtable + syscall.offsets: one record per system call (its ids,
// convention, arguments, entry and exit EIDs, result). Records are looked
// up by the id an execution record names; the table is mapped, not loaded.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "formats/umtrace/mapped_file.h"

namespace ttd::fmt::umtrace {

struct SyscallRecord {
  uint64_t id = 0;
  uint16_t raw_id = 0;      // OS-specific ordinal
  uint16_t uniform_id = 0;  // OS-independent id (syscall_unified_id_v<N>.h)
  uint8_t convention = 0;   // 0 unknown, 1 32-bit fast, 2 64-bit fast, 3 int 2e, 4 WOW64, 5 int
  bool completed = false;
  int64_t begin_eid = -1, end_eid = -1;
  uint64_t before_sp = 0;
  uint64_t result = 0;  // garbage unless completed
  std::vector<uint64_t> args;
  uint8_t extra_count = 0;
};

class SyscallTable {
 public:
  // Both files must exist; a trace without system calls has none of them,
  // which the reader handles by not opening this table.
  static Result<std::unique_ptr<SyscallTable>> open(const std::string& vtable_path, const std::string& offsets_path);

  uint64_t count() const { return count_; }
  uint32_t unified_ids_version() const { return unified_version_; }
  Result<SyscallRecord> get(uint64_t id) const;

 private:
  SyscallTable() = default;
  std::unique_ptr<MappedFile> vtable_, offsets_;
  uint64_t count_ = 0;
  uint32_t unified_version_ = 0;
};

}  // namespace ttd::fmt::umtrace
