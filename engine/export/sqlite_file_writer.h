// The SQLite export's writer: a RowWriter that writes an SQLite database
// file directly in SQLite's file format (one table, its indexes, and
// export_info). The file appears under its name only when complete
// (OutputStream's temporary file and rename); an error removes it.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "engine/export/row_writer.h"

namespace ttd::exporting {

struct SqliteFileOptions {
  uint32_t page_size = 65536;           // a power of two, 512..65536
  size_t sort_run_bytes = size_t(32) << 20;  // per index: memory before a sorted run is spilled to disk
};

Result<std::unique_ptr<RowWriter>> make_sqlite_file_writer(const std::string& path, SqliteFileOptions o = {});

}  // namespace ttd::exporting
