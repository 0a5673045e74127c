#include "formats/rvnblock/rvn_metadata.h"

#include <charconv>

namespace ttd::fmt::rvnblock {

std::string_view resource_type_name(uint32_t type) {
  switch (type) {
    case 1: return "TraceBin";
    case 2: return "TraceCache";
    case 3: return "MemHist";
    case 4: return "Strings";
    case 5: return "StackEvents";
    case 6: return "BinaryRanges";
    case 7: return "PCRanges";
    case 8: return "KernelDescription";
    case 9: return "Block";
    case 10: return "OssiRanges";
    default: return "";
  }
}

Result<RvnMetadata> read_rvn_metadata(SqliteDb& db) {
  if (!db.has_table("_metadata"))
    return make_error(db.path(),
                      "no REVEN metadata (table _metadata is missing): not a REVEN resource "
                      "database, so not an rvnblock trace");
  // Version-0 metadata has no metadata_version column (and no tool_version);
  // name the columns so the layout difference cannot shift values.
  const bool versioned = db.has_column("_metadata", "metadata_version");
  const bool has_tool_version = db.has_column("_metadata", "tool_version");
  std::string sql = "SELECT ";
  sql += versioned ? "metadata_version" : "0";
  sql += ", type, format_version, tool_name, ";
  sql += has_tool_version ? "tool_version" : "''";
  sql += ", tool_info, generation_date FROM _metadata";
  auto st = db.prepare(sql);
  if (!st) return make_error(db.path(), "ill-formed REVEN metadata: " + st.error().message);
  SqliteStatement& stmt = st.value();
  StepResult r = stmt.step();
  if (r == StepResult::Failed) return db.error("cannot read REVEN metadata");
  if (r == StepResult::Done) return make_error(db.path(), "ill-formed REVEN metadata: table _metadata is empty");
  RvnMetadata md;
  int64_t version = stmt.column_int64(0);
  int64_t type = stmt.column_int64(1);
  md.format_version = stmt.column_text(2);
  md.tool_name = stmt.column_text(3);
  md.tool_version = stmt.column_text(4);
  md.tool_info = stmt.column_text(5);
  md.generation_date = uint64_t(stmt.column_int64(6));
  if (stmt.step() != StepResult::Done)
    return make_error(db.path(), "ill-formed REVEN metadata: table _metadata has more than one row");
  if (version < 0 || version > int64_t(kCurrentMetadataVersion))
    return make_error(db.path(), "REVEN metadata version " + std::to_string(version) +
                                     " is newer than this reader knows (" +
                                     std::to_string(kCurrentMetadataVersion) + ")");
  if (type < 0 || type > 0xffffffffll)
    return make_error(db.path(), "ill-formed REVEN metadata: resource type " + std::to_string(type));
  md.metadata_version = uint32_t(version);
  md.type = uint32_t(type);
  return md;
}

namespace {

// The leading "major" of a semantic version ("1.0.0", "1.42.12-test+dummy").
bool version_major(std::string_view v, uint64_t& major) {
  auto res = std::from_chars(v.data(), v.data() + v.size(), major);
  return res.ec == std::errc() && res.ptr != v.data() &&
         (res.ptr == v.data() + v.size() || *res.ptr == '.');
}

}  // namespace

Status check_block_trace_metadata(const RvnMetadata& md, const std::string& path) {
  if (md.metadata_version == 0)
    return make_error(path,
                      "outdated REVEN metadata (metadata version 0, written before rvnsqlite added "
                      "metadata_version and tool_version); regenerate the trace with a current "
                      "REVEN / rvnblock");
  if (md.type != kResourceTypeBlock) {
    std::string_view name = resource_type_name(md.type);
    if (name.empty())
      return make_error(path, "unknown REVEN resource type " + std::to_string(md.type) +
                                  " in _metadata; a block trace has type " +
                                  std::to_string(kResourceTypeBlock));
    return make_error(path, "this is a REVEN " + std::string(name) + " resource (type " +
                                std::to_string(md.type) + "), not a block trace (type " +
                                std::to_string(kResourceTypeBlock) + ")");
  }
  uint64_t major = 0;
  if (!version_major(md.format_version, major))
    return make_error(path, "ill-formed block trace format version '" + md.format_version + "'");
  if (major != kBlockFormatMajor)
    return make_error(path, "incompatible block trace format version " + md.format_version +
                                " (" + (major < kBlockFormatMajor ? "past" : "future") +
                                " major version; this reader reads " +
                                std::to_string(kBlockFormatMajor) + ".x)");
  return {};
}

}  // namespace ttd::fmt::rvnblock
