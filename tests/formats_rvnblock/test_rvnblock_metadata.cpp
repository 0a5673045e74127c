// REVEN metadata checks against rvnmetadata's own test files, and files
// that are not SQLite at all.
#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>

#include "formats/rvnblock/rvn_metadata.h"
#include "temp_path.h"
#include "formats/rvnblock/rvnblock_reader.h"

// A namespace of its own: CI's unity build compiles it with its suite's other files.
namespace test_rvnblock_metadata {

using namespace ttd;
using namespace ttd::fmt::rvnblock;

namespace {

const std::string kDir = TTD_RVNBLOCK_TEST_DATA;

std::string refusal(const std::string& path) {
  auto r = RvnblockReader::open(path);
  REQUIRE_FALSE(r.ok());
  // Every refusal names the file.
  CHECK(r.error().where == path);
  CHECK(r.error().to_string().rfind(path + ": ", 0) == 0);
  return r.error().message;
}

RvnMetadata metadata_of(const std::string& path) {
  auto db = SqliteDb::open_readonly(path);
  REQUIRE(db.ok());
  auto md = read_rvn_metadata(*db.value());
  REQUIRE_MESSAGE(md.ok(), md.error().to_string());
  return md.value();
}

}  // namespace

TEST_CASE("rvnmetadata good: well-formed metadata, but a MemHist resource") {
  std::string path = kDir + "/rvnmetadata-testdata-good.sqlite";
  RvnMetadata md = metadata_of(path);
  CHECK(md.metadata_version == 1);
  CHECK(md.type == 3);
  CHECK(md.format_version == "1.42.12-test+dummy");
  CHECK(md.tool_name == "TestMetaDataWriter");
  CHECK(md.tool_version == "2.42.12-test+dummy");
  CHECK(md.tool_info == "Written by Quentin to test his type detection");
  CHECK(md.generation_date == 42424242);
  std::string msg = refusal(path);
  CHECK(msg == "this is a REVEN MemHist resource (type 3), not a block trace (type 9)");
}

TEST_CASE("rvnmetadata outdated: version-0 metadata is read but refused") {
  std::string path = kDir + "/rvnmetadata-testdata-outdated.sqlite";
  RvnMetadata md = metadata_of(path);
  CHECK(md.metadata_version == 0);
  CHECK(md.type == 3);
  CHECK(md.tool_version.empty());
  CHECK(md.tool_info == "Written for Quentin to test his type detection");
  CHECK(md.generation_date == 42424242);
  std::string msg = refusal(path);
  CHECK(msg.find("outdated REVEN metadata (metadata version 0") == 0);
}

TEST_CASE("rvnmetadata wrong_type: type 0 is no REVEN resource") {
  std::string path = kDir + "/rvnmetadata-testdata-wrong_type.sqlite";
  CHECK(metadata_of(path).type == 0);
  CHECK(refusal(path) == "unknown REVEN resource type 0 in _metadata; a block trace has type 9");
}

TEST_CASE("rvnmetadata without_metadata: no _metadata table") {
  std::string path = kDir + "/rvnmetadata-testdata-without_metadata.sqlite";
  std::string msg = refusal(path);
  CHECK(msg.find("no REVEN metadata (table _metadata is missing)") == 0);
}

TEST_CASE("block trace metadata: format versions") {
  RvnMetadata md;
  md.metadata_version = 1;
  md.type = kResourceTypeBlock;
  md.format_version = "1.0.0";
  CHECK(check_block_trace_metadata(md, "f").ok());
  md.format_version = "1.3.7-beta+x";  // newer minor: still readable
  CHECK(check_block_trace_metadata(md, "f").ok());
  md.format_version = "2.0.0";
  auto s = check_block_trace_metadata(md, "f");
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().message.find("incompatible block trace format version 2.0.0 (future") == 0);
  md.format_version = "0.9.0";
  CHECK(check_block_trace_metadata(md, "f").error().message.find("(past") != std::string::npos);
  md.format_version = "garbage";
  CHECK(check_block_trace_metadata(md, "f").error().message.find("ill-formed") == 0);
}

TEST_CASE("rvnblock: files that are not SQLite give a clear error") {
  std::string text = kDir + "/source-execution.steps.txt";
  std::string msg = refusal(text);
  CHECK(msg.find("not an SQLite database") == 0);

  // SQLite would happily treat an empty file as an empty database.
  std::string empty = test::temp_path("empty.sqlite");
  { std::ofstream f(empty); }
  CHECK(refusal(empty).find("not an SQLite database") == 0);
  std::remove(empty.c_str());

  auto missing = RvnblockReader::open(kDir + "/no-such-file.sqlite");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message == "cannot open file");
}

}  // namespace test_rvnblock_metadata
