#include "formats/umtrace/itable_header.h"

#include "formats/umtrace/umtrace_layout.h"

namespace ttd::fmt::umtrace {

Result<ItableHeader> read_itable_header(const MappedFile& f, const ItableExpectations& want) {
  using L = ItableHeaderLayout;
  const uint32_t header_size = want.has_extra ? L::kSizeWithExtra : L::kSize;
  if (!f.contains(0, header_size))
    return f.error_at(f.size(), "file is " + std::to_string(f.size()) + " bytes, shorter than its " +
                                    std::to_string(header_size) + "-byte table header");
  const uint8_t* p = f.data();
  const int32_t header_ver = load_le_i32(p + L::kHeaderVer);
  if (header_ver != 0)
    return f.error_at(L::kHeaderVer, "table header version " + std::to_string(header_ver) + " (only 0 is known)");
  ItableHeader h;
  const int32_t record_ver = load_le_i32(p + L::kRecordVer);
  if (record_ver < 0 || uint32_t(record_ver) > want.max_record_version)
    return f.error_at(L::kRecordVer, "record version " + std::to_string(record_ver) + " (this reader knows up to " +
                                         std::to_string(want.max_record_version) + ")");
  h.record_version = uint32_t(record_ver);
  const int64_t rows = load_le_i64(p + L::kRowCount), row_size = load_le_i64(p + L::kRowSize), table = load_le_i64(p + L::kTableFP);
  if (rows < 0) return f.error_at(L::kRowCount, "negative row count " + std::to_string(rows));
  if (row_size < int64_t(want.min_row_size))
    return f.error_at(L::kRowSize, "row size " + std::to_string(row_size) + " is smaller than the " +
                                       std::to_string(want.min_row_size) + "-byte record");
  if (table < 0 || uint64_t(table) > f.size())
    return f.error_at(L::kTableFP, "table position " + std::to_string(table) + " is outside the " +
                                       std::to_string(f.size()) + "-byte file");
  h.row_count = uint64_t(rows);
  h.row_size = uint64_t(row_size);
  h.table_fp = uint64_t(table);
  // rows * row_size could overflow: compare by division.
  if (h.row_count > (f.size() - h.table_fp) / h.row_size)
    return f.error_at(L::kRowCount, std::to_string(h.row_count) + " rows of " + std::to_string(h.row_size) +
                                        " bytes from byte " + std::to_string(h.table_fp) + " do not fit in the " +
                                        std::to_string(f.size()) + "-byte file");
  if (want.has_extra) {
    const int64_t extra = load_le_i64(p + L::kExtraFP), extra_size = load_le_i64(p + L::kExtraSize);
    if (extra < 0 || extra_size < 0 || !f.contains(uint64_t(extra), uint64_t(extra_size)))
      return f.error_at(L::kExtraFP, "extra area of " + std::to_string(extra_size) + " bytes at byte " +
                                         std::to_string(extra) + " is outside the " + std::to_string(f.size()) +
                                         "-byte file");
    h.extra_fp = uint64_t(extra);
    h.extra_size = uint64_t(extra_size);
  }
  return h;
}

}  // namespace ttd::fmt::umtrace
