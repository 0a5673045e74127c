// address_space.itable: the 4 KiB page ranges the trace ever refers to.
// Small: read whole. The reader reports it; it is a superset of the memory
// the trace gives values for.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "state/error.h"

namespace ttd::fmt::umtrace {

struct AddressRange {
  uint64_t first = 0, last = 0;  // inclusive; first is page aligned, last + 1 too
};

Result<std::vector<AddressRange>> read_address_space_table(const std::string& path);

}  // namespace ttd::fmt::umtrace
