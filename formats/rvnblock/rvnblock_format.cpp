#include "formats/rvnblock/rvnblock_format.h"

#include <cstring>

#include "formats/rvnblock/rvnblock_reader.h"
#include "formats/rvnblock/sqlite_db.h"

namespace ttd::fmt {

namespace {

bool looks_like_sqlite(std::span<const uint8_t> head) {
  static const char magic[16] = "SQLite format 3";  // includes the final NUL
  return head.size() >= 16 && std::memcmp(head.data(), magic, 16) == 0;
}

// An SQLite file is ours when it is a REVEN resource (has _metadata) or has
// the block tables: then open() explains what is wrong with it instead of
// the registry saying "unknown format".
bool sniff(const std::string& path, std::span<const uint8_t> head) {
  if (!looks_like_sqlite(head)) return false;
  auto db = rvnblock::SqliteDb::open_readonly(path);
  if (!db) return false;
  return db.value()->has_table("_metadata") ||
         (db.value()->has_table("blocks") && db.value()->has_table("execution"));
}

}  // namespace

FormatEntry rvnblock_format() {
  FormatEntry e;
  e.name = "rvnblock";
  e.description = "REVEN block trace (SQLite): pc sequence and code bytes";
  e.sniff = sniff;
  e.open = [](const std::string& path, const ReaderOptions& opts) -> Result<std::unique_ptr<TraceReader>> {
    auto r = rvnblock::RvnblockReader::open(path, opts);
    if (!r) return r.error();
    return std::unique_ptr<TraceReader>(std::move(r.value()));
  };
  return e;
}

}  // namespace ttd::fmt
