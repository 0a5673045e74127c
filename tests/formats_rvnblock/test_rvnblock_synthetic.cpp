// Small rvnblock databases written here with the real DDL, for what the real
// trace does not exercise: interrupts, partially executed blocks, blocks
// whose later instruction offsets were never stored, 32-bit code, and
// broken files.
#include <doctest/doctest.h>
#include <sqlite3.h>

#include <cstdio>
#include <string>

#include "collecting_sink.h"
#include "formats/rvnblock/rvnblock_format.h"
#include "formats/rvnblock/rvnblock_reader.h"
#include "temp_path.h"

using namespace ttd;
using namespace ttd::fmt;
using namespace ttd::fmt::rvnblock;

namespace {

// The DDL tetrane/rvnblock's writer and rvnsqlite create.
const char* kSchema = R"(
CREATE TABLE _metadata (metadata_version int,type int,format_version text,tool_name text,tool_version text,tool_info text,generation_date int8);
INSERT INTO _metadata VALUES (1, 9, '1.0.0', 'synthetic', '1.0.0', 'written by test_rvnblock', 1700000000);
CREATE TABLE blocks(pc int8 not null,instruction_data blob not null,instruction_count int2 not null,mode int1 not null);
CREATE TABLE execution(transition_id int8 PRIMARY KEY not null,block_id int4 not null) WITHOUT ROWID;
CREATE TABLE instruction_indices(block_id INTEGER NOT NULL,instruction_id INTEGER NOT NULL,instruction_index INTEGER NOT NULL,PRIMARY KEY (block_id, instruction_id)) WITHOUT ROWID;
CREATE TABLE interrupts(transition_id int8 PRIMARY KEY NOT NULL,pc int8 NOT NULL,mode int1 NOT NULL,number INTEGER NOT NULL,is_hw BOOL NOT NULL,related_instruction_block_id INTEGER NOT NULL) WITHOUT ROWID;
INSERT INTO blocks VALUES (0, CAST('interrupt' AS BLOB), 0, 0);
)";

class TempDb {
 public:
  explicit TempDb(const std::string& sql, bool with_schema = true) : path_(test::temp_path("t.sqlite")) {
    sqlite3* db = nullptr;
    REQUIRE(sqlite3_open(path_.c_str(), &db) == SQLITE_OK);
    char* err = nullptr;
    std::string script = (with_schema ? std::string(kSchema) : std::string()) + sql;
    int rc = sqlite3_exec(db, script.c_str(), nullptr, nullptr, &err);
    INFO((err ? err : ""));
    REQUIRE(rc == SQLITE_OK);
    sqlite3_close(db);
  }
  ~TempDb() { std::remove(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// 64-bit blocks:
//  2 @0x1000: mov rax,rcx (3) ; add rax,1 (4) ; jmp 0x1000 (2)   all offsets stored
//  3 @0x2000: nop (1) ; xor rax,rax (3) ; ret (1)                  run 2 of 3, offsets stored for 2
//  4 @0x3000: inc rax (3) ; push rax (1) ; ret (1)                 no offsets stored at all
const char* kBlocks64 = R"(
INSERT INTO blocks VALUES (4096, X'4889C84883C001EBF7', 3, 0);
INSERT INTO instruction_indices VALUES (2, 0, 3), (2, 1, 7);
INSERT INTO blocks VALUES (8192, X'904831C0C3', 3, 0);
INSERT INTO instruction_indices VALUES (3, 0, 1);
INSERT INTO blocks VALUES (12288, X'48FFC050C3', 3, 0);
)";

Status read_all(const std::string& path, test::CollectingSink& sink) {
  auto r = RvnblockReader::open(path);
  if (!r) return r.error();
  return r.value()->read(sink, nullptr);
}

uint64_t attr_u64(const test::CollectingSink& sink, uint64_t eid, const std::string& key) {
  auto it = sink.attrs.find(eid);
  REQUIRE(it != sink.attrs.end());
  for (auto& [k, v] : it->second)
    if (k == key) return std::get<uint64_t>(v);
  FAIL("no attribute " << key);
  return 0;
}

}  // namespace

TEST_CASE("rvnblock synthetic: interrupts, partial runs, offsets found by Capstone") {
  TempDb db(std::string(kBlocks64) + R"(
INSERT INTO execution VALUES (3, 2), (4, 1), (6, 3), (9, 4), (10, 1), (13, 2);
INSERT INTO interrupts VALUES (3, 4103, 0, 14, 0, 2);
)");
  test::CollectingSink sink;
  Status s = read_all(db.path(), sink);
  REQUIRE_MESSAGE(s.ok(), s.error().to_string());
  REQUIRE(sink.steps.size() == 13);
  struct Expect { uint64_t pc; uint32_t size; StepKind kind; };
  const Expect expect[] = {
      {0x1000, 3, StepKind::Instruction}, {0x1003, 4, StepKind::Instruction},
      {0x1007, 2, StepKind::Instruction}, {0x1007, 0, StepKind::Interrupt},
      {0x2000, 1, StepKind::Instruction}, {0x2001, 3, StepKind::Instruction},
      {0x3000, 3, StepKind::Instruction}, {0x3003, 1, StepKind::Instruction},
      {0x3004, 1, StepKind::Instruction}, {0, 0, StepKind::Interrupt},
      {0x1000, 3, StepKind::Instruction}, {0x1003, 4, StepKind::Instruction},
      {0x1007, 2, StepKind::Instruction},
  };
  for (size_t eid = 0; eid < 13; ++eid) {
    INFO("EID " << eid);
    CHECK(sink.steps[eid].pc == expect[eid].pc);
    CHECK(sink.steps[eid].size == expect[eid].size);
    CHECK(sink.steps[eid].kind == expect[eid].kind);
  }
  // The interrupt at transition 3 carries its record; the one at 9 has none.
  CHECK(attr_u64(sink, 3, "interrupt") == 14);
  CHECK(attr_u64(sink, 3, "hardware") == 0);
  CHECK(attr_u64(sink, 3, "related block") == 2);
  CHECK(sink.attrs.count(9) == 0);
  // Each block's code arrives once, just before its first step.
  REQUIRE(sink.writes.size() == 3);
  CHECK(sink.writes[0].before_eid == 0);
  CHECK(sink.writes[0].addr == 0x1000);
  CHECK(sink.writes[0].bytes.size() == 9);
  CHECK(sink.writes[1].before_eid == 4);
  CHECK(sink.writes[1].addr == 0x2000);
  CHECK(sink.writes[2].before_eid == 6);
  CHECK(sink.writes[2].addr == 0x3000);
  CHECK(sink.info.arch == ArchId::X86_64);
}

TEST_CASE("rvnblock synthetic: 32-bit code decodes as i386") {
  // @0x8000: inc eax (1, 0x40: a REX prefix in 64-bit mode) ; mov eax, 5 (5)
  TempDb db(R"(
INSERT INTO blocks VALUES (32768, X'40B805000000', 2, 1);
INSERT INTO execution VALUES (2, 2);
)");
  test::CollectingSink sink;
  REQUIRE(read_all(db.path(), sink).ok());
  CHECK(sink.info.arch == ArchId::I386);
  REQUIRE(sink.steps.size() == 2);
  CHECK(sink.steps[0].size == 1);
  CHECK(sink.steps[1].pc == 0x8001);
  CHECK(sink.steps[1].size == 5);
}

TEST_CASE("rvnblock synthetic: broken files are refused with the reason") {
  SUBCASE("execution names a block that does not exist") {
    TempDb db(std::string(kBlocks64) + "INSERT INTO execution VALUES (3, 2), (5, 77);");
    test::CollectingSink sink;
    Status s = read_all(db.path(), sink);
    REQUIRE_FALSE(s.ok());
    CHECK(s.error().where == db.path());
    CHECK(s.error().message == "execution refers to block 77, which is not in table blocks");
    CHECK(sink.steps.size() == 3);  // what came before is delivered
  }
  SUBCASE("a run longer than its block") {
    TempDb db(std::string(kBlocks64) + "INSERT INTO execution VALUES (5, 2);");
    test::CollectingSink sink;
    Status s = read_all(db.path(), sink);
    REQUIRE_FALSE(s.ok());
    CHECK(s.error().message.find("runs 5 instructions of block 2, which has only 3") != std::string::npos);
  }
  SUBCASE("mixed execution modes") {
    TempDb db("INSERT INTO blocks VALUES (1, X'90', 1, 0), (2, X'90', 1, 1);");
    auto r = RvnblockReader::open(db.path());
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message.find("mix several execution modes") != std::string::npos);
  }
  SUBCASE("16-bit code") {
    TempDb db("INSERT INTO blocks VALUES (1, X'90', 1, 2);");
    auto r = RvnblockReader::open(db.path());
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message == "16-bit x86 execution mode is not supported");
  }
  SUBCASE("no interrupt block first") {
    TempDb db(R"(
CREATE TABLE _metadata (metadata_version int,type int,format_version text,tool_name text,tool_version text,tool_info text,generation_date int8);
INSERT INTO _metadata VALUES (1, 9, '1.0.0', 't', '1', 'i', 0);
CREATE TABLE blocks(pc int8 not null,instruction_data blob not null,instruction_count int2 not null,mode int1 not null);
CREATE TABLE execution(transition_id int8 PRIMARY KEY not null,block_id int4 not null) WITHOUT ROWID;
CREATE TABLE instruction_indices(block_id INTEGER NOT NULL,instruction_id INTEGER NOT NULL,instruction_index INTEGER NOT NULL,PRIMARY KEY (block_id, instruction_id)) WITHOUT ROWID;
INSERT INTO blocks VALUES (4096, X'90', 1, 0);
)", false);
    auto r = RvnblockReader::open(db.path());
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message.find("block 1 is not the interrupt block") == 0);
  }
  SUBCASE("block trace metadata without the tables") {
    TempDb db(R"(
CREATE TABLE _metadata (metadata_version int,type int,format_version text,tool_name text,tool_version text,tool_info text,generation_date int8);
INSERT INTO _metadata VALUES (1, 9, '1.0.0', 't', '1', 'i', 0);
)", false);
    auto r = RvnblockReader::open(db.path());
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message == "block trace metadata but table blocks is missing");
  }
  SUBCASE("code bytes past the end of the address space") {
    // fuzz_rvnblock: the block's code became a memory write whose last
    // byte wrapped around to address 0.
    TempDb db("INSERT INTO blocks VALUES (-2, X'909090', 3, 0);"
              "INSERT INTO execution VALUES (1, 2);");
    test::CollectingSink sink;
    Status s = read_all(db.path(), sink);
    REQUIRE_FALSE(s.ok());
    CHECK(s.error().message == "block 2 at pc 0xfffffffffffffffe has 3 code bytes, past the end of the address space");
  }
  SUBCASE("instruction offsets out of order") {
    TempDb db("INSERT INTO blocks VALUES (4096, X'9090', 2, 0);"
              "INSERT INTO instruction_indices VALUES (2, 0, 5);"
              "INSERT INTO execution VALUES (1, 2);");
    test::CollectingSink sink;
    Status s = read_all(db.path(), sink);
    REQUIRE_FALSE(s.ok());
    CHECK(s.error().message.find("block 2: instruction offset 5 is out of order or past its 2 code bytes") == 0);
  }
}

TEST_CASE("rvnblock synthetic: an empty execution table is an empty trace") {
  TempDb db("");
  test::CollectingSink sink;
  REQUIRE(read_all(db.path(), sink).ok());
  CHECK(sink.steps.empty());
  CHECK(sink.ended);
}

TEST_CASE("rvnblock synthetic: a run claiming more steps than the file can hold is refused before any step") {
  // The issue's file: a few KB whose last execution row runs the interrupt
  // block up to transition 2^40. It used to stream 2^40 interrupt steps
  // into the index until the disk was full.
  const uint64_t huge = uint64_t(1) << 40;
  TempDb db(std::string(kBlocks64) + "INSERT INTO execution VALUES (3, 2), (" + std::to_string(huge) + ", 1);");
  auto r = RvnblockReader::open(db.path());
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().where == db.path());
  CHECK_MESSAGE(r.error().message.find("declares " + std::to_string(huge) + " steps") != std::string::npos,
                r.error().message);
  CHECK(r.error().message.find("--max-steps") != std::string::npos);
  // Through the registry, as `ttd index` opens it.
  auto entry = rvnblock_format();
  CHECK_FALSE(entry.open(db.path(), ReaderOptions{}).ok());
  // The override lets a genuinely long trace through (opening only: reading
  // it would emit 2^40 steps).
  ReaderOptions big;
  big.max_steps = huge;
  auto ok = RvnblockReader::open(db.path(), big);
  REQUIRE_MESSAGE(ok.ok(), ok.error().to_string());
  CHECK(entry.open(db.path(), big).ok());
  // An explicit limit below a trace's length refuses it too.
  TempDb small(std::string(kBlocks64) + "INSERT INTO execution VALUES (3, 2), (4, 1), (6, 3);");
  ReaderOptions tight;
  tight.max_steps = 5;
  auto refused = RvnblockReader::open(small.path(), tight);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().message.find("more than --max-steps 5") != std::string::npos);
  tight.max_steps = 6;
  test::CollectingSink sink;
  auto fits = RvnblockReader::open(small.path(), tight);
  REQUIRE(fits.ok());
  REQUIRE(fits.value()->read(sink, nullptr).ok());
  CHECK(sink.steps.size() == 6);
}
