// Bad input: every damaged table gives an Error naming the file and the
// byte offset (or line), never a crash. A valid trace is written, then one
// file is damaged per case.
#include <doctest/doctest.h>

#include <filesystem>
#include <random>

#include "formats/umtrace/umtrace_layout.h"
#include "formats/umtrace/umtrace_reader.h"
#include "recording_sink.h"
#include "synthetic_umtrace.h"
#include "temp_dir.h"

// A namespace of its own: CI's unity build compiles it with its suite's other files.
namespace test_umtrace_errors {

using namespace ttd;
using namespace ttd::test;
using namespace ttd::fmt::umtrace;

namespace {

constexpr uint8_t k64 = kFlag64Bit;

// Two threads, a system call, memory reads and writes, a module.
void write_base(const std::string& dir) {
  SyntheticUmtrace t(dir);
  UmtraceWriter& w = t.writer();
  w.add_module(ModuleSpec{0, -1, 0x1000, 0x1fff, "C:\\a.exe", "\\Device\\a.exe"});
  const uint32_t a = t.thread(10), b = t.thread(20);
  t.thread_begin(a, {{"RAX", 1}, {"RIP", 0x1000}, {"RSP", 0x7000}});
  t.instruction(a, k64, 0x1000, {in_reg("RAX", 1), in_mem(0x8000, {1, 2, 3, 4}), after_reg("RAX", 5)});
  t.thread_begin(b, {{"RIP", 0x1000}});
  t.instruction(b, k64, 0x1004, {after_mem(0x8010, {7, 7})}, {0x50});
  SyscallSpec sc;
  sc.args = {1, 2};
  const uint64_t id = w.add_syscall(sc);
  REQUIRE(w.syscall_entry(a, k64, id, ContextSpec{t.dump({{"RIP", 0x1002}}), {}}));
  REQUIRE(w.syscall_exit(a, k64, int64_t(id), ContextSpec{t.dump({{"RIP", 0x1002}}), {ContextMemSpec{0x8020, {1}}}}));
  t.instruction(a, k64, 0x1002, {in_reg("RAX", 1)});
  REQUIRE(w.thread_end(b, k64, 0));
  REQUIRE(w.app_end(a, k64, 0));
  t.finish();
}

Error read_error(const std::string& dir) {
  auto r = UmtraceReader::open(dir);
  if (!r) return r.error();
  RecordingSink sink;
  auto s = (*r)->read(sink, {});
  REQUIRE_MESSAGE(!s, "the damaged trace read without error");
  return s.error();
}

void check_error(const Error& e, const char* file, std::optional<uint64_t> offset) {
  INFO(e.to_string());
  CHECK(std::filesystem::path(e.where).filename() == file);
  if (offset) {
    CHECK(e.offset == offset);
    CHECK(!e.offset_is_line);
  }
  CHECK(!e.message.empty());
}

uint64_t u64_at(const std::vector<uint8_t>& b, size_t at) { return load_le64(b.data() + at); }
void set_u64(std::vector<uint8_t>& b, size_t at, uint64_t v) { store_le64(b.data() + at, v); }
void set_u16(std::vector<uint8_t>& b, size_t at, uint16_t v) { store_le16(b.data() + at, v); }

struct Damage {
  TempDir dir;
  Damage() { write_base(dir.path()); }
  std::vector<uint8_t> get(const char* f) { return read_bytes(dir.file(f)); }
  void put(const char* f, const std::vector<uint8_t>& b) { write_bytes(dir.file(f), b); }
  Error error() { return read_error(dir.path()); }
};

}  // namespace

TEST_CASE("the undamaged base trace reads") {
  TempDir dir;
  write_base(dir.path());
  auto r = UmtraceReader::open(dir.path());
  REQUIRE_MESSAGE(r, why(r));
  RecordingSink sink;
  auto s = (*r)->read(sink, {});
  REQUIRE_MESSAGE(s, why(s));
  CHECK(sink.steps.size() == 9);
}

TEST_CASE("execution table damage") {
  Damage d;
  SUBCASE("exec.vtable shorter than its header") {
    d.put(kExecVtable, std::vector<uint8_t>(10, 0));
    check_error(d.error(), kExecVtable, 10);
  }
  SUBCASE("a record count that does not fit exec.offsets") {
    auto v = d.get(kExecVtable);
    set_u64(v, ExecLayout::kRecordCount, 1000000);
    d.put(kExecVtable, v);
    check_error(d.error(), kExecVtable, ExecLayout::kRecordCount);
  }
  SUBCASE("a negative record count") {
    auto v = d.get(kExecVtable);
    set_u64(v, ExecLayout::kRecordCount, ~0ull);
    d.put(kExecVtable, v);
    check_error(d.error(), kExecVtable, ExecLayout::kRecordCount);
  }
  SUBCASE("an unknown table version") {
    auto v = d.get(kExecVtable);
    v[0] = 7;
    d.put(kExecVtable, v);
    check_error(d.error(), kExecVtable, 0);
  }
  SUBCASE("an offset past the end of exec.vtable") {
    auto o = d.get(kExecOffsets);
    set_u64(o, 3 * 8, 1ull << 40);
    d.put(kExecOffsets, o);
    check_error(d.error(), kExecOffsets, 2 * 8 + 8);  // record 2 ends where record 3 starts
  }
  SUBCASE("an offset near 2^64 does not wrap around the checks") {
    auto o = d.get(kExecOffsets);
    set_u64(o, 1 * 8, ~0ull - 3);
    d.put(kExecOffsets, o);
    check_error(d.error(), kExecOffsets, 1 * 8);
  }
  SUBCASE("offsets that go backwards") {
    auto o = d.get(kExecOffsets);
    set_u64(o, 2 * 8, u64_at(o, 1 * 8) + 2);
    d.put(kExecOffsets, o);
    check_error(d.error(), kExecVtable, u64_at(o, 1 * 8));
  }
  SUBCASE("the last record cut in half (file truncated)") {
    auto v = d.get(kExecVtable);
    v.resize(v.size() - 2);
    d.put(kExecVtable, v);
    check_error(d.error(), kExecOffsets, 9 * 8);  // the end offset of the last (ninth) record
  }
  SUBCASE("an instruction record cut short") {
    auto o = d.get(kExecOffsets);
    const uint64_t begin = u64_at(o, 1 * 8);
    set_u64(o, 2 * 8, begin + 6 + 8 + 3);  // header, instruction id, 3 of its 12+ local context bytes
    d.put(kExecOffsets, o);
    check_error(d.error(), kExecVtable, begin);
  }
  SUBCASE("a context dump cut short") {
    auto o = d.get(kExecOffsets);
    const uint64_t begin = u64_at(o, 4 * 8);  // the system call entry
    auto v = d.get(kExecVtable);
    set_u64(v, begin + 6 + 8 + ContextLayout::kRegsFP, 1u << 20);
    d.put(kExecVtable, v);
    check_error(d.error(), kExecVtable, begin + 6 + 8 + ContextLayout::kRegsFP);
  }
  SUBCASE("a context with more memory references than bytes") {
    auto o = d.get(kExecOffsets);
    const uint64_t begin = u64_at(o, 5 * 8);  // the system call exit
    auto v = d.get(kExecVtable);
    store_le32(v.data() + begin + 6 + 8 + ContextLayout::kMemCount, 0x7fffffff);
    d.put(kExecVtable, v);
    check_error(d.error(), kExecVtable, begin + 6 + 8);
  }
  SUBCASE("a record of a thread the thread table does not have") {
    auto t = d.get(kThreadTable);
    set_u64(t, ItableHeaderLayout::kRowCount, 1);
    d.put(kThreadTable, t);
    auto o = d.get(kExecOffsets);
    check_error(d.error(), kExecVtable, u64_at(o, 2 * 8));
  }
  SUBCASE("an instruction id beyond the instruction table") {
    auto o = d.get(kExecOffsets);
    auto v = d.get(kExecVtable);
    set_u64(v, u64_at(o, 1 * 8) + 6, 99);
    d.put(kExecVtable, v);
    check_error(d.error(), kInsTable, std::nullopt);
  }
  SUBCASE("prev/next that disagree with the records") {
    auto pn = d.get(kExecPrevNext);
    set_u64(pn, 3 * 16, 0);  // record 3 (thread b) claims record 0 came before it
    d.put(kExecPrevNext, pn);
    check_error(d.error(), kExecPrevNext, 3 * 16);
  }
  SUBCASE("a short prev/next column") {
    auto pn = d.get(kExecPrevNext);
    pn.resize(40);
    d.put(kExecPrevNext, pn);
    check_error(d.error(), kExecPrevNext, 40);
  }
  SUBCASE("exec.offsets missing") {
    std::filesystem::remove(d.dir.file(kExecOffsets));
    check_error(d.error(), kExecOffsets, std::nullopt);
  }
}

TEST_CASE("instruction table damage") {
  Damage d;
  auto ins = d.get(kInsTable);
  const size_t row0 = ItableHeaderLayout::kSizeWithExtra;
  const uint64_t extra = u64_at(ins, ItableHeaderLayout::kExtraFP);
  SUBCASE("a row count that does not fit") {
    set_u64(ins, ItableHeaderLayout::kRowCount, 1ull << 58);
    d.put(kInsTable, ins);
    check_error(d.error(), kInsTable, ItableHeaderLayout::kRowCount);
  }
  SUBCASE("an extra area past the end") {
    set_u64(ins, ItableHeaderLayout::kExtraSize, 1ull << 30);
    d.put(kInsTable, ins);
    check_error(d.error(), kInsTable, ItableHeaderLayout::kExtraFP);
  }
  SUBCASE("a decoded instruction outside the extra area") {
    set_u64(ins, row0 + InsRecLayout::kDecodedFP, 1ull << 33);
    d.put(kInsTable, ins);
    check_error(d.error(), kInsTable, row0 + InsRecLayout::kDecodedFP);
  }
  SUBCASE("more slots than the extra area holds") {
    const uint64_t dec = extra + u64_at(ins, row0 + InsRecLayout::kDecodedFP);
    ins[dec + DecodedLayout::kLCCount] = 250;
    ins[dec + DecodedLayout::kFirstAfterSlot] = 250;
    d.put(kInsTable, ins);
    check_error(d.error(), kInsTable, dec + DecodedLayout::kLCCount);
  }
  SUBCASE("a slot past the local context") {
    const uint64_t dec = extra + u64_at(ins, row0 + InsRecLayout::kDecodedFP);
    set_u16(ins, dec + DecodedLayout::kLCSlots + LcSlotLayout::kOffset, 0x7000);
    d.put(kInsTable, ins);
    check_error(d.error(), kInsTable, dec + DecodedLayout::kLCSlots);
  }
  SUBCASE("a slot naming a register the context map does not have") {
    const uint64_t dec = extra + u64_at(ins, row0 + InsRecLayout::kDecodedFP);
    set_u16(ins, dec + DecodedLayout::kLCSlots + LcSlotLayout::kRegName, 600);
    d.put(kInsTable, ins);
    check_error(d.error(), kInsTable, dec + DecodedLayout::kLCSlots);
  }
  SUBCASE("an instruction claiming a 20-byte encoding") {
    ins[row0 + InsRecLayout::kCodeSize] = 20;
    d.put(kInsTable, ins);
    check_error(d.error(), kInsTable, row0 + InsRecLayout::kCodeSize);
  }
  SUBCASE("a newer record version") {
    ins[ItableHeaderLayout::kRecordVer] = 2;
    d.put(kInsTable, ins);
    check_error(d.error(), kInsTable, ItableHeaderLayout::kRecordVer);
  }
  SUBCASE("a file shorter than its header") {
    ins.resize(20);
    d.put(kInsTable, ins);
    check_error(d.error(), kInsTable, 20);
  }
}

TEST_CASE("context map damage") {
  Damage d;
  auto map = d.get(kContextMap);
  SUBCASE("too short") {
    map.resize(100);
    d.put(kContextMap, map);
    check_error(d.error(), kContextMap, 100);
  }
  SUBCASE("a map that names no registers") {
    std::fill(map.begin() + ContextMapLayout::kStrName, map.begin() + ContextMapLayout::kRegMap32, 0);
    d.put(kContextMap, map);
    check_error(d.error(), kContextMap, ContextMapLayout::kStrName);
  }
  SUBCASE("names of registers no x86 has") {
    for (uint32_t i = 1; i < ContextMapLayout::kEntries; ++i) {
      const uint32_t at = ContextMapLayout::kStrName + i * 16;
      std::fill(map.begin() + at, map.begin() + at + 16, 0);
      std::memcpy(map.data() + at, "BOGUS", 5);
    }
    d.put(kContextMap, map);
    check_error(d.error(), kContextMap, ContextMapLayout::kStrName);
  }
  SUBCASE("a register past the dump") {
    set_u16(map, ContextMapLayout::kRegMap64 + 8 * 1, 0xfff0);
    d.put(kContextMap, map);
    check_error(d.error(), kContextMap, ContextMapLayout::kRegMap64 + 8 * 1);
  }
  SUBCASE("an element count beyond the arrays") {
    set_u16(map, ContextMapLayout::kElemCount, 600);
    d.put(kContextMap, map);
    check_error(d.error(), kContextMap, ContextMapLayout::kElemCount);
  }
  SUBCASE("an unterminated name") {
    std::fill(map.begin() + ContextMapLayout::kStrName + 16, map.begin() + ContextMapLayout::kStrName + 32, 'A');
    d.put(kContextMap, map);
    check_error(d.error(), kContextMap, ContextMapLayout::kStrName + 16);
  }
}

TEST_CASE("small table damage") {
  Damage d;
  SUBCASE("a system call record outside syscall.vtable") {
    auto o = d.get(kSyscallOffsets);
    set_u64(o, 0, 1ull << 40);
    d.put(kSyscallOffsets, o);
    check_error(d.error(), kSyscallOffsets, 0);
  }
  SUBCASE("system call arguments past their record") {
    auto v = d.get(kSyscallVtable);
    v[SyscallLayout::kHeaderSize + SyscallLayout::kArgCount] = 100;
    d.put(kSyscallVtable, v);
    check_error(d.error(), kSyscallVtable, SyscallLayout::kHeaderSize + SyscallLayout::kArgsFP);
  }
  SUBCASE("more system calls than offsets") {
    auto v = d.get(kSyscallVtable);
    set_u64(v, SyscallLayout::kRecordCount, 5);
    d.put(kSyscallVtable, v);
    check_error(d.error(), kSyscallVtable, SyscallLayout::kRecordCount);
  }
  SUBCASE("a module name outside the string area") {
    auto m = d.get(kModuleTable);
    set_u64(m, ItableHeaderLayout::kSizeWithExtra + ModuleLayout::kWinNameFP, 1ull << 20);
    d.put(kModuleTable, m);
    check_error(d.error(), kModuleTable, ItableHeaderLayout::kSizeWithExtra + ModuleLayout::kWinNameFP);
  }
  SUBCASE("a thread row with the wrong self id") {
    auto t = d.get(kThreadTable);
    store_le32(t.data() + ItableHeaderLayout::kSize + ThreadLayout::kSize, 5);
    d.put(kThreadTable, t);
    check_error(d.error(), kThreadTable, ItableHeaderLayout::kSize + ThreadLayout::kSize);
  }
  SUBCASE("an address range that is not whole pages") {
    auto a = d.get(kAddressSpace);
    set_u64(a, ItableHeaderLayout::kSize, 0x8001);
    d.put(kAddressSpace, a);
    check_error(d.error(), kAddressSpace, ItableHeaderLayout::kSize);
  }
  SUBCASE("malformed trace.xml names the line") {
    const std::string xml = "<?xml version=\"1.0\"?>\n<Data>\n  <TraceMetaData>\n    <App>\n  </TraceMetaData>\n</Data>\n";
    d.put(kTraceXml, std::vector<uint8_t>(xml.begin(), xml.end()));
    Error e = d.error();
    CHECK(std::filesystem::path(e.where).filename() == kTraceXml);
    CHECK(e.offset_is_line);
    CHECK(e.offset == 5);
  }
  SUBCASE("trace.xml with another root") {
    const std::string xml = "<Trace/>";
    d.put(kTraceXml, std::vector<uint8_t>(xml.begin(), xml.end()));
    CHECK(d.error().message.find("<Data>") != std::string::npos);
  }
}

TEST_CASE("random damage never crashes the reader") {
  TempDir base;
  write_base(base.path());
  const char* files[] = {kExecVtable, kExecOffsets, kExecPrevNext, kInsTable,    kSyscallVtable, kSyscallOffsets,
                         kModuleTable, kThreadTable, kContextMap,  kAddressSpace, kTraceXml};
  std::mt19937_64 rng(12345);
  size_t errors = 0;
  for (int round = 0; round < 300; ++round) {
    TempDir d;
    for (const char* f : files) std::filesystem::copy_file(base.file(f), d.file(f));
    const char* victim = files[rng() % std::size(files)];
    auto b = read_bytes(d.file(victim));
    switch (rng() % 4) {
      case 0:
        if (!b.empty()) b.resize(rng() % b.size());
        break;
      case 1:
        for (int i = 0; i < 4 && !b.empty(); ++i) b[rng() % b.size()] ^= uint8_t(1 << (rng() % 8));
        break;
      case 2:
        if (b.size() >= 8) set_u64(b, (rng() % (b.size() - 7)) & ~7ull, rng() >> (rng() % 64));
        break;
      default:
        for (int i = 0; i < 8 && !b.empty(); ++i) b[rng() % b.size()] = uint8_t(rng());
    }
    write_bytes(d.file(victim), b);
    auto r = UmtraceReader::open(d.path());
    if (!r) {
      ++errors;
      CHECK(!r.error().where.empty());
      continue;
    }
    RecordingSink sink;
    if (!(*r)->read(sink, {})) ++errors;
  }
  MESSAGE(errors << " of 300 damaged traces were refused");
  CHECK(errors > 100);
}

}  // namespace test_umtrace_errors
