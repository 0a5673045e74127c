// Negotiation, descriptions, thread listing, host facts, monitor.
#include <doctest/doctest.h>

#include "gdbstub/packet_reader.h"
#include "harness.h"

using namespace ttd::gdb;
using ttd::gdb::test::Harness;

TEST_CASE("qSupported is derived from the target's capabilities") {
  Harness h;
  std::string reply = h.one("qSupported:multiprocess+;swbreak+;hwbreak+;vContSupported+;xmlRegisters=i386");
  CHECK(reply.starts_with("PacketSize=10000;"));
  for (const char* f : {"QStartNoAckMode+", "qXfer:features:read+", "qXfer:threads:read+", "qXfer:exec-file:read+",
                        "multiprocess+", "swbreak+", "hwbreak+", "vContSupported+", "ReverseContinue+", "ReverseStep+"})
    CHECK_MESSAGE(reply.find(f) != std::string::npos, f);
  CHECK(reply.find("binary-upload") == std::string::npos);
  CHECK(reply.find("error-message") == std::string::npos);
  CHECK(h.state.client.multiprocess);
  CHECK(h.state.client.swbreak);

  Harness plain;
  plain.target.caps.reverse = false;
  plain.target.caps.hw_breakpoints = false;
  plain.target.exec_path.reset();
  reply = plain.one("qSupported");
  CHECK(reply.find("Reverse") == std::string::npos);
  CHECK(reply.find("hwbreak") == std::string::npos);
  CHECK(reply.find("exec-file") == std::string::npos);
  CHECK_FALSE(plain.state.client.multiprocess);  // the client did not offer it
  CHECK_FALSE(plain.state.client.swbreak);
}

TEST_CASE("small negotiation packets") {
  Harness h;
  CHECK(h.one("vMustReplyEmpty") == "");
  CHECK(h.one("QStartNoAckMode") == "OK");
  CHECK(h.state.no_ack);
  CHECK(h.one("QThreadSuffixSupported") == "OK");
  CHECK(h.one("QListThreadsInStopReply") == "OK");
  CHECK(h.state.client.thread_suffix);
  CHECK(h.state.client.threads_in_stop_reply);
  CHECK(h.one("QNonStop:0") == "OK");
  CHECK(h.one("QNonStop:1").starts_with("E"));
  CHECK(h.one("qAttached") == "1");
  CHECK(h.one("qAttached:1") == "1");
  CHECK(h.one("qTStatus") == "");  // "T0" would make gdb poll trace state
  CHECK(h.one("qOffsets") == "");
  CHECK(h.one("qSymbol::") == "OK");
  CHECK(h.one("!") == "");
  CHECK(h.one("qCRC:1000,10") == "");  // not swallowed by qC
  CHECK(h.one("vRun;") == "");
  CHECK(h.one("jThreadsInfo") == "");
  CHECK(h.one("_M1000,rwx") == "");
  CHECK(h.one("totally unknown") == "");
}

TEST_CASE("error replies carry text once the client asks for it") {
  Harness h;
  CHECK(h.one("P0=00") == "E01");
  h.one("QEnableErrorStrings");
  std::string lldb = h.one("P0=00");
  CHECK(lldb.starts_with("E01;"));
  CHECK(decode_hex_text(lldb.substr(4))->find("recorded trace") != std::string::npos);
  Harness g;
  std::string reply = g.one("qSupported:multiprocess+;error-message+");
  CHECK(reply.find("error-message+") != std::string::npos);
  CHECK(g.one("M1000,1:00").starts_with("E.memory cannot be changed"));
}

TEST_CASE("qXfer:features:read serves target.xml in m/l chunks") {
  Harness h;
  std::string xml = h.target.target_description();
  std::string assembled;
  uint64_t offset = 0;
  for (int guard = 0; guard < 100; ++guard) {
    std::string reply = h.one("qXfer:features:read:target.xml:" + hex_number(offset) + ",40");
    REQUIRE_FALSE(reply.empty());
    REQUIRE((reply[0] == 'm' || reply[0] == 'l'));
    auto data = unescape_binary(reply.substr(1));
    REQUIRE(data);
    CHECK(data->size() <= 0x40);
    assembled += *data;
    offset += data->size();
    if (reply[0] == 'l') break;
  }
  CHECK(assembled == xml);
  CHECK(h.one("qXfer:features:read:target.xml:ffffff,1000") == "l");
  CHECK(h.one("qXfer:features:read:other.xml:0,1000").starts_with("E"));
  CHECK(h.one("qXfer:features:read:target.xml:zz,1000").starts_with("E"));
  CHECK(h.one("qXfer:features:read:target.xml").starts_with("E"));
  // An absurd length is capped by PacketSize, not allocated.
  std::string big = h.one("qXfer:features:read:target.xml:0,ffffffffffffffff");
  CHECK(big.size() <= h.state.packet_size);
  CHECK(big[0] == 'l');
}

TEST_CASE("qXfer:threads:read and qXfer:exec-file:read") {
  Harness h;
  h.connect_as_gdb();
  std::string reply = h.one("qXfer:threads:read::0,1000");
  CHECK(reply[0] == 'l');
  CHECK(reply.find("<thread id=\"p1.1\" core=\"0\" name=\"main\"/>") != std::string::npos);
  CHECK(reply.find("<thread id=\"p1.2\" core=\"0\" name=\"worker\"/>") != std::string::npos);
  CHECK(h.one("qXfer:exec-file:read:1:0,1000") == "l/bin/fake");
  CHECK(h.one("qXfer:exec-file:read::0,3") == "m/bi");
  h.target.exec_path.reset();
  CHECK(h.one("qXfer:exec-file:read:1:0,1000").starts_with("E"));
  CHECK(h.one("qXfer:exec-file:read:zz:0,1000").starts_with("E"));
  CHECK(h.one("qXfer:auxv:read::0,1000") == "");  // no auxv known
}

TEST_CASE("qXfer:auxv:read serves the target's auxiliary vector, binary-escaped") {
  Harness h;
  CHECK(h.one("qSupported").find("qXfer:auxv:read+") == std::string::npos);
  std::string auxv("\x09\0\0\0\0\0\0\0\x23\x10\x40\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 32);
  h.target.auxv_bytes = auxv;
  CHECK(h.one("qSupported").find("qXfer:auxv:read+") != std::string::npos);
  std::string reply = h.one("qXfer:auxv:read::0,1000");
  CHECK(reply[0] == 'l');
  CHECK(unescape_binary(reply.substr(1)) == auxv);  // 0x23 '#' travels escaped
  CHECK(reply.find('#') == std::string::npos);
  CHECK(h.one("qXfer:auxv:read::0,10") == "m" + auxv.substr(0, 8) + "}\x03" + auxv.substr(9, 7));
  CHECK(h.one("qXfer:auxv:read:1:0,10") == "E03");
}

TEST_CASE("qOffsets: the target's load offset for text and data, else empty") {
  Harness h;
  CHECK(h.one("qOffsets") == "");  // not known: the debugger keeps its own placement
  h.target.offset = 0;
  CHECK(h.one("qOffsets") == "Text=0;Data=0;Bss=0");
  h.target.offset = 0x555555554000ull;
  CHECK(h.one("qOffsets") == "Text=555555554000;Data=555555554000;Bss=555555554000");
}

TEST_CASE("thread listing and selection, gdb style") {
  Harness h;
  h.connect_as_gdb();
  CHECK(h.one("qfThreadInfo") == "mp1.1,p1.2");
  CHECK(h.one("qsThreadInfo") == "l");
  CHECK(h.one("qC") == "QCp1.1");
  CHECK(h.one("Hgp0.0") == "OK");
  CHECK(h.one("Hc-1") == "OK");
  CHECK(h.one("Hgp1.2") == "OK");
  CHECK(h.state.g_thread == IdSel::specific(2));
  CHECK(h.one("Hgp1.9") == "E02");
  CHECK(h.one("Hgzz") == "E03");
  CHECK(h.one("Hx1") == "E03");
  CHECK(h.one("Tp1.2") == "OK");
  CHECK(h.one("Tp1.9") == "E02");
  CHECK(h.one("T") == "E03");
  CHECK(decode_hex_text(h.one("qThreadExtraInfo,p1.2")) == "worker");
  CHECK(h.one("qThreadExtraInfo,p1.9") == "E02");
  // Thread 2 has no steps after position 8: it is gone there.
  h.target.seek(9);
  CHECK(h.one("qfThreadInfo") == "mp1.1");
  CHECK(h.one("Tp1.2") == "E02");
}

TEST_CASE("thread listing without multiprocess uses bare ids") {
  Harness h;
  h.one("qSupported:swbreak+");
  CHECK(h.one("qfThreadInfo") == "m1,2");
  CHECK(h.one("qC") == "QC1");
  CHECK(h.one("Hg2") == "OK");
  CHECK(h.one("T2") == "OK");
}

TEST_CASE("lldb host and process facts") {
  Harness h;
  h.connect_as_lldb();
  std::string host = h.one("qHostInfo");
  CHECK(host.find("triple:" + encode_hex_text("x86_64-unknown-linux-gnu") + ";") != std::string::npos);
  CHECK(host.find("ptrsize:8;") != std::string::npos);
  CHECK(host.find("endian:little;") != std::string::npos);
  CHECK(host.find("watchpoint_exceptions_received:after;") != std::string::npos);
  std::string proc = h.one("qProcessInfo");
  CHECK(proc.starts_with("pid:1;"));
  CHECK(proc.find("triple:") != std::string::npos);
  CHECK(h.one("qWatchpointSupportInfo:") == "num:4;");
  h.target.caps.watchpoints = false;
  CHECK(h.one("qWatchpointSupportInfo:") == "");
}

TEST_CASE("qRcmd: hex in, O packets of hex out, then OK") {
  Harness h;
  auto replies = h.all("qRcmd," + encode_hex_text("eid"));
  REQUIRE(replies.size() == 2);
  CHECK(replies[0] == "O" + encode_hex_text("eid 0\n"));
  CHECK(replies[1] == "OK");
  replies = h.all("qRcmd," + encode_hex_text("bogus"));
  REQUIRE(replies.size() == 2);
  CHECK(decode_hex_text(replies[0].substr(1))->starts_with("error: unknown monitor command"));
  CHECK(replies[1] == "OK");
  replies = h.all("qRcmd," + encode_hex_text("help"));
  REQUIRE(replies.size() == 2);
  std::string help = *decode_hex_text(replies[0].substr(1));
  CHECK(help.find("seek N") != std::string::npos);
  CHECK(help.find("reverse [on|off]") != std::string::npos);
  CHECK(h.one("qRcmd,6") == "E03");
  CHECK(h.one("qRcmd,zz") == "E03");
  h.target.caps.monitor = false;
  h.target.caps.reverse = false;
  CHECK(h.one("qRcmd," + encode_hex_text("eid")) == "");
}

TEST_CASE("qRcmd: long output is split into several O packets") {
  Harness h;
  std::string cmd(3000, 'z');  // unknown: the fake echoes it back in its error
  auto replies = h.all("qRcmd," + encode_hex_text(cmd));
  REQUIRE(replies.size() >= 4);
  CHECK(replies.back() == "OK");
  std::string text;
  for (size_t i = 0; i + 1 < replies.size(); ++i) {
    REQUIRE(replies[i][0] == 'O');
    CHECK(replies[i].size() <= 1 + 2 * 1024);
    text += *decode_hex_text(replies[i].substr(1));
  }
  CHECK(text.find(cmd) != std::string::npos);
}
