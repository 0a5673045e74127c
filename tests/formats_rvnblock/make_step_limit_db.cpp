// Writes the rvnblock databases of the CLI step-limit test (issue 21):
//   make_step_limit_db huge PATH   a few KB whose last execution row runs the
//                                  interrupt block up to transition 2^40
//   make_step_limit_db small PATH  the same blocks, 6 transitions
#include <sqlite3.h>

#include <cstdio>
#include <cstring>
#include <string>

int main(int argc, char** argv) {
  if (argc != 3 || (std::strcmp(argv[1], "huge") && std::strcmp(argv[1], "small"))) {
    std::fprintf(stderr, "usage: make_step_limit_db huge|small PATH\n");
    return 2;
  }
  std::remove(argv[2]);
  const std::string rows = std::strcmp(argv[1], "huge") == 0 ? "(3, 2), (1099511627776, 1)" : "(3, 2), (4, 1), (6, 3)";
  const std::string sql = R"(
CREATE TABLE _metadata (metadata_version int,type int,format_version text,tool_name text,tool_version text,tool_info text,generation_date int8);
INSERT INTO _metadata VALUES (1, 9, '1.0.0', 'synthetic', '1.0.0', 'issue 21 step limit', 1700000000);
CREATE TABLE blocks(pc int8 not null,instruction_data blob not null,instruction_count int2 not null,mode int1 not null);
CREATE TABLE execution(transition_id int8 PRIMARY KEY not null,block_id int4 not null) WITHOUT ROWID;
CREATE TABLE instruction_indices(block_id INTEGER NOT NULL,instruction_id INTEGER NOT NULL,instruction_index INTEGER NOT NULL,PRIMARY KEY (block_id, instruction_id)) WITHOUT ROWID;
CREATE TABLE interrupts(transition_id int8 PRIMARY KEY NOT NULL,pc int8 NOT NULL,mode int1 NOT NULL,number INTEGER NOT NULL,is_hw BOOL NOT NULL,related_instruction_block_id INTEGER NOT NULL) WITHOUT ROWID;
INSERT INTO blocks VALUES (0, CAST('interrupt' AS BLOB), 0, 0);
INSERT INTO blocks VALUES (4096, X'4889C84883C001EBF7', 3, 0);
INSERT INTO instruction_indices VALUES (2, 0, 3), (2, 1, 7);
INSERT INTO blocks VALUES (8192, X'904831C0C3', 3, 0);
INSERT INTO instruction_indices VALUES (3, 0, 1);
INSERT INTO execution VALUES )" + rows + ";";
  sqlite3* db = nullptr;
  if (sqlite3_open(argv[2], &db) != SQLITE_OK) return 1;
  char* err = nullptr;
  int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
  if (rc != SQLITE_OK) std::fprintf(stderr, "%s\n", err ? err : "sqlite error");
  sqlite3_free(err);
  sqlite3_close(db);
  return rc == SQLITE_OK ? 0 : 1;
}
