// The common header of the fixed-size tables (ins, module, thread,
// address_space): versions, row count and size, where the rows start, and
// for ins/module the extra area holding their variable-size data.
#pragma once
#include <cstdint>

#include "formats/umtrace/mapped_file.h"

namespace ttd::fmt::umtrace {

struct ItableHeader {
  uint32_t record_version = 0;
  uint64_t row_count = 0;
  uint64_t row_size = 0;
  uint64_t table_fp = 0;
  uint64_t extra_fp = 0, extra_size = 0;  // only for tables that have an extra area

  uint64_t row_offset(uint64_t row) const { return table_fp + row * row_size; }
};

struct ItableExpectations {
  uint32_t min_row_size = 0;        // sizeof(record) of the newest version we know
  uint32_t max_record_version = 0;  // newer record layouts are refused
  bool has_extra = false;           // header carries ExtraFP / ExtraSize
};

// Reads and checks the header: every row and the extra area lie inside the
// file, so callers may read rows without further bounds checks.
Result<ItableHeader> read_itable_header(const MappedFile& f, const ItableExpectations& want);

}  // namespace ttd::fmt::umtrace
