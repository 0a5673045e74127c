// Resuming forwards and backwards: stop replies, breakpoints, watchpoints,
// history boundaries, interrupts, thread selection after stops.
//
// The fake program (gdbstub/testing/fake_target.h), position: thread pc
//   0: 1 1000   1: 1 1004 writes 8000   2: 2 1040   3: 1 1008 reads 8000
//   4: 2 1044 writes 8008   5: 1 100c   6: 1 1010 writes 8000   7: 1 1004
//   8: 2 1048   9: 1 1014   10: end
#include <doctest/doctest.h>

#include "gdbstub/packets/stop_reply.h"
#include "harness.h"

using namespace ttd;
using namespace ttd::gdb;
using ttd::gdb::test::Harness;
using ttd::gdb::test::le64;

namespace {

// "5:<pc>;4:<sp>;" as expedited in stop replies.
std::string regs_of(uint64_t pc, uint64_t tid) { return "5:" + le64(pc) + ";4:" + le64(0x7ff000 - tid * 0x1000) + ";"; }

}  // namespace

TEST_CASE("initial stop and vCont?") {
  Harness h;
  h.connect_as_gdb();
  CHECK(h.one("?") == "T05thread:p1.1;" + regs_of(0x1000, 1));
  CHECK(h.one("vCont?") == "vCont;c;C;s;S");
  Harness bare;
  bare.one("qSupported");
  CHECK(bare.one("?") == "T05thread:1;" + regs_of(0x1000, 1));
}

// lldb re-reads the first stop after its loader plugin set breakpoints; a
// SIGTRAP at its entry breakpoint (the first pc of a recorded static musl
// program) would count as a hit and lldb would run on. lldb-server reports
// SIGSTOP there, gdbserver SIGTRAP (what gdb expects).
TEST_CASE("the attach stop: SIGSTOP for lldb, SIGTRAP for gdb, then T05 for both") {
  Harness lldb;
  lldb.connect_as_lldb();
  CHECK(lldb.one("?").starts_with("T13thread:p1.1;"));
  CHECK(lldb.one("qThreadStopInfo1").starts_with("T13thread:p1.1;"));
  CHECK(lldb.one("qThreadStopInfo2").starts_with("T00thread:p1.2;"));
  CHECK(lldb.one("vCont;s:p1.1").starts_with("T05thread:p1.1;"));
  CHECK(lldb.one("?").starts_with("T05thread:p1.1;"));
  Harness lldb_info_first;  // qThreadStopInfo before '?' says the same
  lldb_info_first.connect_as_lldb();
  CHECK(lldb_info_first.one("qThreadStopInfo1").starts_with("T13thread:p1.1;"));
  Harness gdb;
  gdb.connect_as_gdb();
  CHECK(gdb.one("?") == "T05thread:p1.1;" + regs_of(0x1000, 1));
}

TEST_CASE("forward single steps follow the stepped thread") {
  Harness h;
  h.connect_as_gdb();
  CHECK(h.one("vCont;s:p1.1;c:p1.-1") == "T05thread:p1.1;" + regs_of(0x1004, 1));
  CHECK(h.target.position() == 1);
  CHECK(h.one("vCont;s:p1.1;c:p1.-1") == "T05thread:p1.1;" + regs_of(0x1008, 1));
  CHECK(h.target.position() == 3);  // thread 2's step 2 ran in between
  CHECK(h.one("vCont;s:p1.2") == "T05thread:p1.2;" + regs_of(0x1044, 2));
  CHECK(h.target.position() == 4);
  CHECK(h.state.g_thread == IdSel::specific(2));  // forward stop: the stopped thread
  CHECK(h.state.c_thread == IdSel::specific(2));
  CHECK(h.one("s") == "T05thread:p1.2;" + regs_of(0x1048, 2));  // legacy s uses Hc
  // Thread 2 has no more steps: the end of history is reported on the
  // thread of the last step.
  CHECK(h.one("vCont;s") == "T05thread:p1.1;replaylog:end;" + regs_of(0x1018, 1));
}

TEST_CASE("continue to software and hardware breakpoints") {
  Harness h;
  h.connect_as_gdb();
  CHECK(h.one("Z0,1010,1") == "OK");
  CHECK(h.one("Z0,1010,1") == "OK");  // twice is harmless
  CHECK(h.one("vCont;c:p1.-1") == "T05thread:p1.1;swbreak:;" + regs_of(0x1010, 1));
  CHECK(h.target.position() == 6);
  CHECK(h.target.last_breakpoint_count == 1);
  CHECK(h.one("z0,1010,1") == "OK");
  CHECK(h.one("z0,1010,1") == "OK");  // removing a missing one too
  CHECK(h.one("Z1,1004,1") == "OK");
  CHECK(h.one("c") == "T05thread:p1.1;hwbreak:;" + regs_of(0x1004, 1));
  CHECK(h.target.position() == 7);
  CHECK(h.target.last_breakpoint_count == 1);
}

TEST_CASE("breakpoint stops without swbreak+ carry no reason key") {
  Harness h;
  h.one("qSupported:multiprocess+");  // like lldb-16
  h.one("Z0,1010,1");
  CHECK(h.one("vCont;c") == "T05thread:p1.1;" + regs_of(0x1010, 1));
}

TEST_CASE("watchpoints: write, read and access stops report the address") {
  Harness h;
  h.connect_as_gdb();
  CHECK(h.one("Z2,8000,8") == "OK");
  CHECK(h.one("vCont;c:p1.-1") == "T05thread:p1.1;watch:8000;" + regs_of(0x1008, 1));
  CHECK(h.target.position() == 2);  // x86 timing: after the writing step
  CHECK(h.one("z2,8000,8") == "OK");
  CHECK(h.one("Z3,8004,4") == "OK");
  CHECK(h.one("vCont;c:p1.-1") == "T05thread:p1.1;rwatch:8004;" + regs_of(0x100c, 1));
  CHECK(h.one("z3,8004,4") == "OK");
  CHECK(h.one("Z4,8008,4") == "OK");
  CHECK(h.one("vCont;c:p1.-1") == "T05thread:p1.2;awatch:8008;" + regs_of(0x1048, 2));
  CHECK(h.target.last_watchpoint_count == 1);
}

TEST_CASE("end of history: replaylog:end, or W when the target exits") {
  Harness h;
  h.connect_as_gdb();
  CHECK(h.one("vCont;c") == "T05thread:p1.1;replaylog:end;" + regs_of(0x1018, 1));
  Harness exits;
  exits.connect_as_gdb();
  exits.target.exit_at_end = true;
  CHECK(exits.one("vCont;c") == "W00;process:1");
  CHECK(exits.one("?") == "W00;process:1");
  Harness bare;
  bare.target.exit_at_end = true;
  CHECK(bare.one("c") == "W00");
}

TEST_CASE("reverse continue skips the breakpoint it starts on and ends at history begin") {
  Harness h;
  h.connect_as_gdb();
  h.target.seek(10);
  CHECK(h.one("Z0,1004,1") == "OK");
  CHECK(h.one("bc") == "T05thread:p1.1;swbreak:;" + regs_of(0x1004, 1));
  CHECK(h.target.position() == 7);
  CHECK(h.state.g_thread == IdSel::any());  // reverse stop: back to "any"
  CHECK(h.state.c_thread == IdSel::any());
  CHECK(h.one("bc") == "T05thread:p1.1;swbreak:;" + regs_of(0x1004, 1));
  CHECK(h.target.position() == 1);
  // Always T05 at the boundary: lldb-16 resumes forever after T00.
  CHECK(h.one("bc") == "T05thread:p1.1;replaylog:begin;" + regs_of(0x1000, 1));
  CHECK(h.target.position() == 0);
  CHECK(h.target.last_request.direction == Direction::Backward);
}

TEST_CASE("reverse step steps the Hc thread, or the last reported one for 'any'") {
  Harness h;
  h.connect_as_gdb();
  h.target.seek(7);
  CHECK(h.one("Hcp1.0") == "OK");
  CHECK(h.one("bs") == "T05thread:p1.1;" + regs_of(0x1010, 1));
  CHECK(h.target.position() == 6);
  CHECK(h.one("Hcp1.2") == "OK");
  CHECK(h.one("bs") == "T05thread:p1.2;" + regs_of(0x1044, 2));
  CHECK(h.target.position() == 4);
  CHECK(h.one("Hcp1.0") == "OK");
  CHECK(h.one("bs") == "T05thread:p1.2;" + regs_of(0x1040, 2));  // thread 2 was reported last
  CHECK(h.target.position() == 2);
  h.target.seek(0);
  CHECK(h.one("bs").find("replaylog:begin;") != std::string::npos);
}

TEST_CASE("reverse watchpoint stops before the write, memory holds the old value") {
  Harness h;
  h.connect_as_gdb();
  h.target.seek(10);
  CHECK(h.one("Z2,8000,8") == "OK");
  CHECK(h.one("bc") == "T05thread:p1.1;watch:8000;" + regs_of(0x1010, 1));
  CHECK(h.target.position() == 6);
  CHECK(h.one("m8000,1") == "11");
}

TEST_CASE("reverse packets are refused when the target cannot reverse") {
  Harness h;
  h.target.caps.reverse = false;
  CHECK(h.one("bc") == "");
  CHECK(h.one("bs") == "");
  CHECK(h.all("qRcmd," + encode_hex_text("reverse on")).size() == 2);  // goes to the target instead
  CHECK_FALSE(h.state.reverse_mode);
}

TEST_CASE("monitor reverse on: ordinary continue and step run backwards") {
  Harness h;
  h.connect_as_lldb();
  h.target.seek(10);
  auto on = h.all("qRcmd," + encode_hex_text("reverse on"));
  REQUIRE(on.size() == 2);
  CHECK(decode_hex_text(on[0].substr(1)) == "direction: reverse\n");
  CHECK(h.state.reverse_mode);
  // A bare "reverse" asks, and says how to change it.
  auto ask = h.all("qRcmd," + encode_hex_text("reverse"));
  REQUIRE(ask.size() == 2);
  CHECK(decode_hex_text(ask[0].substr(1)) == "direction: reverse (monitor reverse off to change)\n");
  CHECK(h.state.reverse_mode);
  h.one("Z0,1004,1");
  CHECK(h.one("vCont;c").find("thread:p1.1;") != std::string::npos);
  CHECK(h.target.position() == 7);
  CHECK(h.one("vCont;s:0001").find("thread:p1.1;") != std::string::npos);
  CHECK(h.target.position() == 6);
  CHECK(h.target.last_request.direction == Direction::Backward);
  h.all("qRcmd," + encode_hex_text("reverse off"));
  h.one("vCont;s:0001");
  CHECK(h.target.last_request.direction == Direction::Forward);
  CHECK(h.target.position() == 7);
  auto bad = h.all("qRcmd," + encode_hex_text("reverse sideways"));
  CHECK(decode_hex_text(bad[0].substr(1))->starts_with("error"));
}

TEST_CASE("lldb stop replies list threads and their pcs") {
  Harness h;
  h.connect_as_lldb();
  std::string stop = h.one("?");
  CHECK(stop.starts_with("T13thread:p1.1;threads:1,2;thread-pcs:1000,1040;"));
  CHECK(h.one("qThreadStopInfo1") == stop);
  CHECK(h.one("qThreadStopInfo2").starts_with("T00thread:p1.2;threads:1,2;"));
  CHECK(h.one("qThreadStopInfo9") == "E02");
  CHECK(h.one("qThreadStopInfozz") == "E03");
  h.one("Z0,1010,1");
  std::string bp = h.one("vCont;c");
  CHECK(bp.starts_with("T05thread:p1.1;threads:1,2;thread-pcs:1010,1048;5:"));
  CHECK(h.one("qThreadStopInfo1") == bp);
}

TEST_CASE("interrupts: T02 when the check fires") {
  Harness h;
  h.connect_as_gdb();
  h.interrupt = [] { return true; };
  CHECK(h.one("vCont;c") == "T02thread:p1.1;" + regs_of(0x1000, 1));
  CHECK(h.state.g_thread == IdSel::specific(1));
  int polls = 0;
  h.target.spin_forever = true;
  h.interrupt = [&] { return ++polls == 50; };
  CHECK(h.one("vCont;c").starts_with("T02thread:p1.1;"));
  CHECK(polls == 50);
  h.target.spin_forever = false;
  h.target.seek(10);
  polls = 0;
  h.interrupt = [&] { return ++polls == 3; };
  CHECK(h.one("bc").starts_with("T02"));
  CHECK(h.target.position() == 8);
}

TEST_CASE("resume packets: malformed and impossible requests") {
  Harness h;
  h.connect_as_gdb();
  CHECK(h.one("vCont;") == "E03");
  CHECK(h.one("vCont;x") == "E03");
  CHECK(h.one("vCont;:p1.1") == "E03");  // found by the fuzzer: an empty action
  CHECK(h.one("vCont;c:zz") == "E03");
  CHECK(h.one("vCont;Czz") == "E03");
  CHECK(h.one("vCont;s:p1.9") == "E02");
  CHECK(h.one("vCont;t:p1.1") == "E06");
  CHECK(h.one("vCont;r1000,2000:p1.1") == "E06");
  CHECK(h.one("cfoo") == "E03");
  CHECK(h.one("C05").starts_with("T05"));  // the signal is ignored
  CHECK(h.one("S05;1000").starts_with("T05"));
  CHECK(h.one("Szz") == "E03");
  CHECK(h.target.resume_count == 2);
  h.target.seek(0);
  CHECK(h.one("Hcp1.2") == "OK");
  h.target.seek(9);  // thread 2 is gone now
  CHECK(h.one("s") == "E02");
  CHECK(h.one("bs") == "E02");
}

TEST_CASE("Z/z: malformed, unsupported and wrapping requests") {
  Harness h;
  CHECK(h.one("Z0") == "E03");
  CHECK(h.one("Z0,zz,1") == "E03");
  CHECK(h.one("Z0,1000") == "E03");
  CHECK(h.one("Za,1000,1") == "E03");
  CHECK(h.one("Z2,8000,0") == "E03");
  CHECK(h.one("Z2,ffffffffffffffff,2") == "E03");
  CHECK(h.one("Z9,1000,1") == "");
  CHECK(h.one("Z0,1000,1;X2,0a0b;cmds:0,1,2") == "OK");  // conditions ignored
  h.target.caps.hw_breakpoints = false;
  h.target.caps.watchpoints = false;
  CHECK(h.one("Z1,1000,1") == "");
  CHECK(h.one("Z2,8000,8") == "");
  CHECK(h.one("z3,8000,8") == "");
}

namespace {
struct BrokenTarget : ttd::gdb::testing::FakeTarget {
  ttd::Result<StopReason> resume(const ResumeRequest&, const InterruptCheck&) override {
    return ttd::make_error("index", "chunk 3 is damaged");
  }
};
}  // namespace

TEST_CASE("a failing target gives E05 with its message") {
  BrokenTarget target;
  SessionState state;
  state.client.error_strings = true;
  ttd::gdb::test::CollectingSink sink;
  HandlerContext ctx{target, state, sink, [] { return false; }};
  dispatch(ctx, "vCont;c");
  REQUIRE(sink.replies.size() == 1);
  CHECK(sink.replies[0].starts_with("E05;"));
  CHECK(decode_hex_text(sink.replies[0].substr(4)) == "index: chunk 3 is damaged");
}

TEST_CASE("session end packets") {
  Harness h;
  CHECK(h.one("D;1") == "OK");
  CHECK(h.state.end == SessionEnd::Detached);
  Harness k;
  CHECK(k.one("vKill;1") == "OK");
  CHECK(k.state.end == SessionEnd::Killed);
  Harness kk;
  CHECK(kk.all("k").empty());
  CHECK(kk.state.end == SessionEnd::Killed);
}
