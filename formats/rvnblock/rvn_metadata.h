// REVEN resource metadata: the `_metadata` table that rvnsqlite adds to
// every REVEN SQLite resource, and the check that a resource is a block trace
// this reader understands. Reading and judging are separate so that tools
// (and tests) can show what a refused file actually is.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "formats/rvnblock/sqlite_db.h"
#include "state/error.h"

namespace ttd::fmt::rvnblock {

// rvnmetadata's ResourceType; 9 is the block trace.
constexpr uint32_t kResourceTypeBlock = 9;
// The metadata layout version rvnsqlite writes today. Version 0 files
// predate the metadata_version and tool_version columns.
constexpr uint32_t kCurrentMetadataVersion = 1;
// The rvnblock format version this reader implements (tetrane/rvnblock
// common.h); files are compatible when the major number matches.
constexpr uint64_t kBlockFormatMajor = 1;

struct RvnMetadata {
  uint32_t metadata_version = 0;
  uint32_t type = 0;
  std::string format_version;
  std::string tool_name;
  std::string tool_version;  // absent (empty) in version-0 metadata
  std::string tool_info;
  uint64_t generation_date = 0;  // seconds since the Unix epoch
};

// "Block", "MemHist", ... or "" for a number rvnmetadata does not define.
std::string_view resource_type_name(uint32_t type);

// Reads the single `_metadata` row. Fails when the table is missing, empty,
// has several rows, or comes from a metadata version newer than we know.
Result<RvnMetadata> read_rvn_metadata(SqliteDb& db);

// Accepts only current-version metadata of a block trace with a compatible
// format version; the error names the file and says what it is instead.
Status check_block_trace_metadata(const RvnMetadata& md, const std::string& path);

}  // namespace ttd::fmt::rvnblock
