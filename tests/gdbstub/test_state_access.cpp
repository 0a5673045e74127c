// Registers and memory at the current position: g / p / m / x, refusals of
// G / P / M / X, qMemoryRegionInfo, and their error paths.
#include <doctest/doctest.h>

#include "gdbstub/packet_reader.h"
#include "harness.h"

using namespace ttd::gdb;
using ttd::gdb::test::Harness;
using ttd::gdb::test::le64;

TEST_CASE("g: every register in regnum order, xx for unknown ones") {
  Harness h;
  h.connect_as_gdb();
  std::string expected = le64(0) + le64(0) + le64(0) + std::string(16, 'x') + le64(0x7fe000) + le64(0x1000) +
                         "02020000" + std::string(32, 'x');
  CHECK(h.one("g") == expected);
  CHECK(h.one("Hgp1.2") == "OK");
  std::string thread2 = h.one("g");
  CHECK(thread2.substr(4 * 16, 16) == le64(0x7fd000));  // thread 2's sp
  CHECK(thread2.substr(5 * 16, 16) == le64(0x1040));    // and pc
  CHECK(h.one("g1") == "E03");
}

TEST_CASE("p: one register, and lldb's thread: suffix picks the thread") {
  Harness h;
  h.connect_as_lldb();
  CHECK(h.one("p5") == le64(0x1000));
  CHECK(h.one("p5;thread:0002;") == le64(0x1040));
  CHECK(h.one("p0;thread:0001;") == le64(0));
  CHECK(h.one("p3;thread:0001;") == std::string(16, 'x'));
  CHECK(h.one("p7") == std::string(32, 'x'));
  CHECK(h.one("g;thread:0002;").substr(5 * 16, 16) == le64(0x1040));
  CHECK(h.one("pff") == "E03");
  CHECK(h.one("pzz") == "E03");
  CHECK(h.one("p") == "E03");
  CHECK(h.one("p5;thread:0009;") == "E02");
  CHECK(h.one("p5;thread:zz;") == "E03");
}

TEST_CASE("writes are refused with a clear error") {
  Harness h;
  for (const char* p : {"G00", "P5=0010000000000000", "M1000,1:90", "X1000,1:a", "P5=00;thread:0001;"})
    CHECK_MESSAGE(h.one(p) == "E01", p);
  h.one("QEnableErrorStrings");
  std::string reply = h.one("G00");
  CHECK(decode_hex_text(reply.substr(4)) == "registers cannot be changed: this is a recorded trace");
}

TEST_CASE("m: known prefix, E14 when nothing is known") {
  Harness h;
  CHECK(h.one("m1000,4") == "90919293");
  CHECK(h.one("m8000,8") == "0000000000000000");
  h.target.seek(2);  // step 1 wrote 0x11 to 0x8000
  CHECK(h.one("m8000,8") == "1100000000000000");
  CHECK(h.one("m807e,4") == "0000");  // 0x8080 onwards is unknown
  CHECK(h.one("m8080,4") == "E14");
  CHECK(h.one("m0,10") == "E14");
  CHECK(h.one("mffffffffffffffff,10") == "E14");
  // Absurd lengths are capped, never allocated.
  std::string all_code = h.one("m1000,ffffffffffffffff");
  CHECK(all_code.size() == 2 * 0x100);
  CHECK(h.one("m1000,0") == "E03");
  CHECK(h.one("m1000") == "E03");
  CHECK(h.one("mzz,4") == "E03");
  CHECK(h.one("m1000,4g") == "E03");
  CHECK(h.one("m10000000000000000,4") == "E03");
}

TEST_CASE("x: lldb's x0,0 probe gets OK, then raw escaped bytes") {
  Harness h;
  h.connect_as_lldb();
  CHECK(h.one("x0,0") == "OK");
  CHECK(h.one("x1000,4") == "\x90\x91\x92\x93");
  CHECK(h.one("x10b3,1") == "}\x03");  // 0x23 '#' is escaped
  CHECK(h.one("x0,4") == "E14");
  CHECK(h.one("xzz,4") == "E03");
  // All of the range or nothing: lldb 16's memory cache crashes on a short
  // reply to its 512-byte line reads (LLVM D145624).
  CHECK(h.one("m10fe,4").size() == 2 * 2);  // m: the known prefix, 0x1100 on is unknown
  CHECK(h.one("x10fe,4") == "E14");
  CHECK(unescape_binary(h.one("x10fe,2"))->size() == 2);
  CHECK(h.one("x1000,ffffff") == "E14");  // capped to a packet, still past the code
  CHECK(unescape_binary(h.one("x1000,100"))->size() == 0x100);
}

TEST_CASE("x: data that lldb would read as OK / Exx is shortened") {
  using ttd::gdb::testing::FakeStep;
  auto writes = [](uint64_t pc, uint64_t addr, uint32_t len, uint64_t value) {
    FakeStep s;
    s.pc = pc;
    s.mem_addr = addr;
    s.mem_len = len;
    s.mem_write = true;
    s.mem_value = value;
    return s;
  };
  FakeStep last;
  last.pc = 0x1008;
  Harness h(ttd::gdb::testing::FakeTarget({writes(0x1000, 0x8010, 3, 0x313045),  // "E01"
                                           writes(0x1004, 0x8020, 2, 0x4b4f),    // "OK"
                                           last}));
  h.target.seek(2);
  CHECK(h.one("m8010,3") == "453031");
  CHECK(h.one("x8010,3") == "E0");
  CHECK(h.one("x8010,4") == std::string("E01\0", 4));  // not an error reply shape
  CHECK(h.one("x8020,2") == "O");
  CHECK(h.one("x8020,3") == std::string("OK\0", 3));
}

TEST_CASE("qMemoryRegionInfo: mappings, and gaps up to the next mapping") {
  Harness h;
  h.connect_as_lldb();
  CHECK(h.one("qMemoryRegionInfo:1000") ==
        "start:1000;size:1000;permissions:rx;name:" + encode_hex_text("/bin/fake") + ";");
  CHECK(h.one("qMemoryRegionInfo:8010") ==
        "start:8000;size:1000;permissions:rw;name:" + encode_hex_text("[heap]") + ";");
  CHECK(h.one("qMemoryRegionInfo:0") == "start:0;size:1000;");
  CHECK(h.one("qMemoryRegionInfo:5000") == "start:5000;size:3000;");
  CHECK(h.one("qMemoryRegionInfo:ffffffffffffffff") == "start:ffffffffffffffff;size:1;");
  CHECK(h.one("qMemoryRegionInfo:zz") == "E03");
  h.target.caps.memory_regions = false;
  CHECK(h.one("qMemoryRegionInfo:1000") == "");
}
