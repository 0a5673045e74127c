// thread.itable: every thread of the traced process (Windows thread id,
// TIB address, first and last EID, record count). Small: read whole.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "state/error.h"

namespace ttd::fmt::umtrace {

struct ThreadRecord {
  uint32_t win_tid = 0;
  uint64_t tib = 0;
  int64_t first_eid = -1, last_eid = -1;
  uint64_t record_count = 0;
};

Result<std::vector<ThreadRecord>> read_thread_table(const std::string& path);

}  // namespace ttd::fmt::umtrace
