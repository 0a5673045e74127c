// The real rvnblock trace in tests/data/rvnblock against its two references:
// the pc sequence gdb single-stepped, and Tetrane's own reader output.
#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "collecting_sink.h"
#include "formats/rvnblock/block_trace.h"
#include "formats/rvnblock/rvnblock_format.h"
#include "formats/rvnblock/rvnblock_reader.h"

using namespace ttd;
using namespace ttd::fmt;
using namespace ttd::fmt::rvnblock;

namespace {

const std::string kDir = TTD_RVNBLOCK_TEST_DATA;
const std::string kTrace = kDir + "/x86_64-gdb-stepi-crc32-static.rvnblock.sqlite";

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

struct SourceStep {
  uint64_t pc;
  std::vector<uint8_t> bytes;
};

std::vector<SourceStep> read_source_steps() {
  std::vector<SourceStep> out;
  std::ifstream f(kDir + "/source-execution.steps.txt");
  std::string pc, hex, rest;
  while (f >> pc >> hex) {
    std::getline(f, rest);
    SourceStep s{std::stoull(pc, nullptr, 16), {}};
    for (size_t i = 0; i + 1 < hex.size(); i += 2) s.bytes.push_back(uint8_t(std::stoul(hex.substr(i, 2), nullptr, 16)));
    out.push_back(std::move(s));
  }
  return out;
}

// Prints the trace exactly as tetrane/rvnblock's bin/cli_block_reader does,
// but through our BlockTrace: proves we see the same runs and blocks.
std::string cli_block_reader_output(BlockTrace& t) {
  std::string out = "Non-instructions\n";
  char line[160];
  {
    auto runs = t.runs();
    REQUIRE(runs.ok());
    BlockRun run;
    while (runs->next(run).value())
      if (run.block_id == kInterruptBlockId) out += std::to_string(run.end - 1) + "\n";
  }
  out += "Finished Non-instructions\nExecution trace\n";
  auto runs = t.runs();
  REQUIRE(runs.ok());
  BlockRun run;
  while (runs->next(run).value()) {
    if (run.block_id == kInterruptBlockId) {
      snprintf(line, sizeof line, "[%llu-%llu] non-instruction\n", (unsigned long long)run.begin,
               (unsigned long long)run.end);
      out += line;
      continue;
    }
    auto b = t.block(run.block_id);
    REQUIRE(b.ok());
    const Block& blk = *b.value();
    bool partial = blk.instruction_count > run.count();
    snprintf(line, sizeof line, "[%llu-%llu] rip=0x%llx instruction_count=%u partial=%s\n",
             (unsigned long long)run.begin, (unsigned long long)run.end, (unsigned long long)blk.pc,
             blk.instruction_count, partial ? "true" : "false");
    out += line;
    if (partial) {
      // Tetrane's sizes: up to the next stored offset, the last to the end.
      for (uint64_t i = 0; i < run.count() && i < blk.stored_offsets.size(); ++i) {
        uint32_t begin = blk.stored_offsets[i];
        uint32_t end = i + 1 < blk.stored_offsets.size() ? blk.stored_offsets[i + 1] : uint32_t(blk.code.size());
        snprintf(line, sizeof line, "\trip=0x%llx instruction bytecount= %u\n",
                 (unsigned long long)(blk.pc + begin), end - begin);
        out += line;
      }
    }
  }
  out += "Finished Execution trace\n";
  return out;
}

}  // namespace

TEST_CASE("rvnblock: pc sequence equals the single-stepped source execution") {
  auto reader = RvnblockReader::open(kTrace);
  REQUIRE_MESSAGE(reader.ok(), reader.error().to_string());
  test::CollectingSink sink;
  REQUIRE(reader.value()->read(sink, nullptr).ok());
  CHECK(sink.ended);

  auto source = read_source_steps();
  REQUIRE(source.size() == 1472);
  REQUIRE(sink.steps.size() == source.size());
  for (size_t eid = 0; eid < source.size(); ++eid) {
    const StepInfo& s = sink.steps[eid];
    INFO("EID " << eid);
    CHECK(s.pc == source[eid].pc);
    CHECK(s.size == source[eid].bytes.size());
    CHECK(s.kind == StepKind::Instruction);
    CHECK(s.tid == 1);
    CHECK(s.pid == 1);
    // The code at pc is known in the state at this EID and is the
    // instruction gdb stepped.
    CHECK(sink.code_at(eid, s.pc, s.size) == source[eid].bytes);
  }
  // Only the code bytes are known: nothing about registers or data memory.
  CHECK(sink.registers == 0);
  CHECK(sink.reads == 0);
  // Each block's code is sent once, at its first execution (83 blocks run).
  CHECK(sink.writes.size() == 84);
}

TEST_CASE("rvnblock: trace info") {
  auto reader = RvnblockReader::open(kTrace);
  REQUIRE(reader.ok());
  TraceInfo info = reader.value()->info();
  CHECK(info.format == "rvnblock");
  CHECK(info.arch == ArchId::X86_64);
  CHECK(info.caps.code_bytes);
  CHECK_FALSE(info.caps.registers);
  CHECK_FALSE(info.caps.memory_values);
  CHECK_FALSE(info.caps.memory_accesses);
  CHECK(info.caps.note == "pc sequence and code only: registers and data memory unknown");
  bool saw_transitions = false;
  for (auto& [k, v] : info.properties)
    if (k == "transitions") {
      saw_transitions = true;
      CHECK(v == "1472");
    }
  CHECK(saw_transitions);
}

TEST_CASE("rvnblock: blocks and runs equal Tetrane's cli_block_reader output") {
  auto t = BlockTrace::open(kTrace);
  REQUIRE_MESSAGE(t.ok(), t.error().to_string());
  std::string expected = slurp(kDir + "/x86_64-gdb-stepi-crc32-static.cli_block_reader.txt");
  REQUIRE(!expected.empty());
  CHECK(cli_block_reader_output(*t.value()) == expected);
}

TEST_CASE("rvnblock: block contents") {
  auto t = BlockTrace::open(kTrace);
  REQUIRE(t.ok());
  CHECK(t.value()->metadata().tool_name == "gdb_stepi_to_rvnblock");
  CHECK(t.value()->metadata().format_version == "1.0.0");
  // Block 2: four instructions, the last one (jmp, 2 bytes) sized by Capstone.
  auto b = t.value()->block(2, 4);
  REQUIRE(b.ok());
  const Block& blk = *b.value();
  CHECK(blk.pc == 0x401615);
  CHECK(blk.instruction_count == 4);
  CHECK(blk.stored_offsets == std::vector<uint32_t>{0, 5, 10, 15});
  CHECK(blk.offsets == std::vector<uint32_t>{0, 5, 10, 15});
  CHECK(blk.sizes == std::vector<uint32_t>{5, 5, 5, 2});
  auto missing = t.value()->block(9999);
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message.find("block 9999") != std::string::npos);
}

TEST_CASE("rvnblock: registry entry sniffs SQLite block traces only") {
  FormatEntry e = rvnblock_format();
  CHECK(e.name == "rvnblock");
  auto head = [](const std::string& path) {
    std::string s = slurp(path).substr(0, 4096);
    return std::vector<uint8_t>(s.begin(), s.end());
  };
  CHECK(e.sniff(kTrace, head(kTrace)));
  std::string text = kDir + "/source-execution.steps.txt";
  CHECK_FALSE(e.sniff(text, head(text)));
  std::string nometa = kDir + "/rvnmetadata-testdata-without_metadata.sqlite";
  CHECK_FALSE(e.sniff(nometa, head(nometa)));
  auto opened = e.open(kTrace, ReaderOptions{});
  REQUIRE(opened.ok());
}

TEST_CASE("rvnblock: progress reports and cancels") {
  auto reader = RvnblockReader::open(kTrace);
  REQUIRE(reader.ok());
  test::CollectingSink sink;
  uint64_t last_done = 0, last_total = 0;
  REQUIRE(reader.value()->read(sink, [&](uint64_t d, uint64_t t) { last_done = d; last_total = t; return true; }).ok());
  CHECK(last_done == 1472);
  CHECK(last_total == 1472);

  auto again = RvnblockReader::open(kTrace);
  test::CollectingSink sink2;
  Status s = again.value()->read(sink2, [](uint64_t, uint64_t) { return false; });
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().message.find("cancelled") != std::string::npos);
  CHECK(s.error().where == kTrace);
}
