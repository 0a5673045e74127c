// module.itable: the DLLs and executables loaded while tracing (name,
// address range, load and unload EIDs). Small: read whole at open.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "state/error.h"

namespace ttd::fmt::umtrace {

struct ModuleRecord {
  int64_t load_eid = -1;    // approximate: the record about to be written at load time
  int64_t unload_eid = -1;  // -1: still loaded when tracing stopped
  uint64_t start = 0, end = 0;  // end is the last byte (inclusive)
  std::string win_name;     // C:\Windows\System32\ntdll.dll (UTF-8)
  std::string device_name;  // \Device\HarddiskVolume3\Windows\System32\ntdll.dll
};

Result<std::vector<ModuleRecord>> read_module_table(const std::string& path);

}  // namespace ttd::fmt::umtrace
