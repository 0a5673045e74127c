// The protocol layer against a fake debuggee over a socketpair: request
// ordering rules, capabilities, error responses for malformed requests,
// what resume requests ask of the debuggee, and the stopped events.
#include <doctest/doctest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <nlohmann/json.hpp>
#include <thread>

#include "dap/protocol/channel.h"
#include "dap/protocol/framing.h"
#include "dap/session.h"

using namespace ttd;
using namespace ttd::dap;
using json = nlohmann::json;

namespace {

struct FakeDebuggee : Debuggee {
  ResumeArgs last;
  std::vector<uint64_t> last_bps;
  StopInfo next_stop;
  uint64_t pos = 5;
  std::string description() const override { return "fake"; }
  bool has_source_info() const override { return true; }
  uint64_t position() const override { return pos; }
  uint64_t end_position() const override { return 100; }
  uint64_t current_thread() const override { return 1; }
  Status seek(uint64_t eid) override {
    if (eid > 100) return make_error("EID", "out of range");
    pos = eid;
    return {};
  }
  std::vector<ThreadEntry> threads() const override { return {{1, "main"}}; }
  // spin: a long run, until interrupted, or for 8 s (under the client's
  // 10 s read timeout), after which it stops as an ordinary step and sets
  // *gave_up (the client's, which outlives the session): a broken interrupt
  // then fails on the result instead of hanging the test, and the time a
  // stop took is printed, not bounded (a loaded machine once took 1.2 s).
  bool spin = false;
  std::atomic<bool>* gave_up = nullptr;
  Result<StopInfo> resume(const ResumeArgs& a, const InterruptCheck& interrupted) override {
    last = a;
    last_bps.assign(a.breakpoints.begin(), a.breakpoints.end());
    if (!spin) return next_stop;
    auto until = std::chrono::steady_clock::now() + std::chrono::seconds(8);
    while (!(interrupted && interrupted()))
      if (std::chrono::steady_clock::now() < until) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      } else {
        if (gave_up) *gave_up = true;
        return next_stop;
      }
    StopInfo s = next_stop;
    s.cause = StopKind::Interrupted;
    return s;
  }
  Result<std::vector<FrameEntry>> stack(uint64_t, size_t) override {
    return std::vector<FrameEntry>{{0x1000, "main", SourceRef{"/src/a.c", 7, 1}}, {0x2000, "start", std::nullopt}};
  }
  Result<std::vector<ScopeEntry>> scopes(uint64_t, size_t) override {
    return std::vector<ScopeEntry>{{"Locals", "L", "locals", false}};
  }
  Result<std::vector<VariableEntry>> variables(const std::string& key) override {
    if (key != "L") return make_error("variables", "bad key");
    VariableEntry v;
    v.name = "x";
    v.value = "42";
    v.type = "int";
    return std::vector<VariableEntry>{v};
  }
  Result<EvalResult> evaluate(const std::string& e, uint64_t, size_t) override {
    if (e == "x") return EvalResult{"42", "int", "", std::nullopt};
    return make_error("expression", "no variable named '" + e + "'");
  }
  Status read_memory(uint64_t, uint64_t addr, std::span<uint8_t> d, std::span<uint8_t> k) override {
    for (size_t i = 0; i < d.size(); ++i) {
      d[i] = uint8_t(addr + i);
      k[i] = i < 3;  // three known bytes, then unknown
    }
    return {};
  }
  Result<std::vector<DisassembledLine>> disassemble(uint64_t, uint64_t addr, int64_t, size_t count) override {
    std::vector<DisassembledLine> v;
    for (size_t i = 0; i < count; ++i) v.push_back({addr + i, "90", "nop", "", std::nullopt, false});
    return v;
  }
  Result<std::vector<BreakpointLocation>> resolve_line(const std::string& path, int line) override {
    if (line == 99) return make_error("setBreakpoints", "no code at line 99");
    return std::vector<BreakpointLocation>{{0x1000 + uint64_t(line), SourceRef{path, line, 0}}};
  }
  Result<std::vector<BreakpointLocation>> resolve_function(const std::string&) override {
    return std::vector<BreakpointLocation>{{0x3000, {}}};
  }
  Result<DataTarget> data_target(const std::string& e, uint64_t, size_t) override { return DataTarget{0x5000, 4, e}; }
  Result<DataTarget> data_target_in(const std::string&, const std::string& n) override { return DataTarget{0x6000, 8, n}; }
  Result<std::vector<GotoTarget>> goto_targets(const std::string& p, int line) override {
    return std::vector<GotoTarget>{{"next", 77, SourceRef{p, line, 0}}};
  }
};

StopInfo stop_info(StopKind cause, uint64_t eid, uint64_t bp = 0, std::string detail = "") {
  StopInfo s;
  s.cause = cause;
  s.tid = 1;
  s.eid = eid;
  s.breakpoint_addr = bp;
  s.detail = std::move(detail);
  return s;
}

// A client end: sends requests, reads messages.
struct Client {
  int fds[2];
  FakeDebuggee* fake = nullptr;  // the session's: gone once it ends
  std::atomic<bool> spin_gave_up = false;
  std::unique_ptr<FdChannel> server_ch, client_ch;
  std::unique_ptr<MessageReader> reader;
  std::thread server;
  int rc = -1;
  int seq = 1;

  Client() {
    REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds) == 0);
    // A silent adapter fails the test after 10 s instead of hanging it.
    timeval tv{10, 0};
    ::setsockopt(fds[1], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    server_ch = std::make_unique<FdChannel>(fds[0], fds[0], true);
    client_ch = std::make_unique<FdChannel>(fds[1], fds[1], true);
    reader = std::make_unique<MessageReader>(*client_ch);
    SessionOptions o;
    o.factory = [this](const LaunchConfig& c, const std::function<void(const std::string&)>&) -> Result<std::unique_ptr<Debuggee>> {
      if (c.trace == "missing") return make_error(c.trace, "no such file");
      auto f = std::make_unique<FakeDebuggee>();
      fake = f.get();
      fake->gave_up = &spin_gave_up;
      return std::unique_ptr<Debuggee>(std::move(f));
    };
    server = std::thread([this, o] { rc = run_session(*server_ch, o); });
  }
  ~Client() {
    client_ch->shutdown();
    ::shutdown(fds[1], SHUT_RDWR);
    if (server.joinable()) server.join();
  }
  void raw(const std::string& s) { REQUIRE(client_ch->write_all(s.data(), s.size())); }
  int send(const std::string& command, json args = nullptr) {
    json m = {{"seq", seq}, {"type", "request"}, {"command", command}};
    if (!args.is_null()) m["arguments"] = args;
    raw(frame_message(m.dump()));
    return seq++;
  }
  json next() {
    Frame f = reader->next();
    REQUIRE(f.kind == Frame::Kind::Message);
    return json::parse(f.body);
  }
  json response(int s) {
    for (;;) {
      json m = next();
      if (m["type"] == "response" && m["request_seq"] == s) return m;
    }
  }
  json event(const std::string& name) {
    for (;;) {
      json m = next();
      if (m["type"] == "event" && m["event"] == name) return m;
    }
  }
  json ok(const std::string& command, json args = nullptr) {
    json r = response(send(command, args));
    INFO(r.dump());
    REQUIRE(r["success"] == true);
    return r.contains("body") ? r["body"] : json::object();
  }
  void launched() {
    ok("initialize", {{"clientID", "test"}});
    ok("launch", {{"trace", "t.ucir"}});
    event("initialized");
  }
};

}  // namespace

TEST_CASE("session: capabilities and the order of requests") {
  Client c;
  json early = c.response(c.send("next", {{"threadId", 1}}));
  CHECK(early["success"] == false);
  CHECK(early["message"].get<std::string>().find("initialize") != std::string::npos);
  json caps = c.ok("initialize", {{"clientID", "test"}});
  for (const char* k : {"supportsStepBack", "supportsConfigurationDoneRequest", "supportsDataBreakpoints",
                        "supportsDisassembleRequest", "supportsReadMemoryRequest", "supportsSteppingGranularity",
                        "supportsInstructionBreakpoints", "supportsGotoTargetsRequest", "supportsEvaluateForHovers"})
    CHECK_MESSAGE(caps[k] == true, k);
  CHECK(c.response(c.send("initialize"))["success"] == false);  // only once
  CHECK(c.response(c.send("stackTrace", {{"threadId", 1}}))["success"] == false);  // before launch
  json bad = c.response(c.send("launch", {{"trace", "missing"}}));
  CHECK(bad["success"] == false);
  CHECK(bad["message"].get<std::string>().find("no such file") != std::string::npos);
  CHECK(c.response(c.send("launch", json::object()))["success"] == false);  // no trace
  c.ok("launch", {{"trace", "t.ucir"}});
  c.event("initialized");
  c.ok("configurationDone");
  json stop = c.event("stopped");
  CHECK(stop["body"]["reason"] == "entry");
  c.ok("disconnect");
  c.server.join();
  CHECK(c.rc == 0);
}

TEST_CASE("session: malformed requests get errors, never a crash") {
  Client c;
  c.raw(frame_message("{not json"));
  json out = c.event("output");
  CHECK(out["body"]["category"] == "stderr");
  c.raw("Content-Length: nope\r\n\r\n");
  c.event("output");
  c.raw(frame_message("[1,2,3]"));
  c.event("output");
  c.raw(frame_message(R"({"type":"request","command":"initialize"})"));  // no seq
  CHECK(c.next()["success"] == false);
  c.launched();
  CHECK(c.response(c.send("frobnicate"))["success"] == false);
  CHECK(c.response(c.send("stackTrace", {{"threadId", "one"}}))["success"] == false);
  CHECK(c.response(c.send("stackTrace", {{"threadId", 99}}))["success"] == false);
  CHECK(c.response(c.send("variables", {{"variablesReference", 12345}}))["success"] == false);
  CHECK(c.response(c.send("scopes", {{"frameId", 7}}))["success"] == false);
  CHECK(c.response(c.send("readMemory", {{"memoryReference", "zzz"}, {"count", 4}}))["success"] == false);
  CHECK(c.response(c.send("readMemory", {{"memoryReference", "0x10"}, {"count", -4}}))["success"] == false);
  CHECK(c.response(c.send("disassemble", {{"memoryReference", "0x10"}, {"instructionCount", -1}}))["success"] == false);
  CHECK(c.response(c.send("next", {{"threadId", 1}, {"granularity", "paragraph"}}))["success"] == false);
  CHECK(c.response(c.send("setBreakpoints", {{"source", {{"path", "/a.c"}}}, {"breakpoints", {{{"line", "x"}}}}}))["success"] == false);
  CHECK(c.response(c.send("evaluate", {{"expression", "nope"}}))["success"] == false);
  CHECK(c.response(c.send("evaluate", {{"expression", "seek zebra"}}))["success"] == false);
  CHECK(c.response(c.send("goto", {{"threadId", 1}, {"targetId", 3}}))["success"] == false);
  c.raw(frame_message(R"({"seq":500,"type":"request","command":"threads","arguments":[1]})"));
  CHECK(c.response(500)["success"] == false);
  // Still serving.
  json th = c.ok("threads");
  CHECK(th["threads"][0]["id"] == 1);
}

TEST_CASE("session: stepping requests and stopped events") {
  Client c;
  c.launched();
  c.fake->next_stop = stop_info(StopKind::Step, 4);
  c.ok("stepBack", {{"threadId", 1}});  // VS Code sends no granularity: a source line
  CHECK(c.event("stopped")["body"]["reason"] == "step");
  CHECK(c.fake->last.direction == Direction::Backward);
  CHECK(c.fake->last.motion == Motion::StepOver);
  CHECK(c.fake->last.granularity == Granularity::Line);
  c.ok("stepBack", {{"threadId", 1}, {"granularity", "instruction"}});
  c.event("stopped");
  CHECK(c.fake->last.granularity == Granularity::Instruction);
  c.ok("stepOut", {{"threadId", 1}});
  c.event("stopped");
  CHECK(c.fake->last.motion == Motion::StepOut);

  json bps = c.ok("setBreakpoints", {{"source", {{"path", "/src/a.c"}}}, {"breakpoints", {{{"line", 7}}, {{"line", 99}}}}});
  REQUIRE(bps["breakpoints"].size() == 2);
  CHECK(bps["breakpoints"][0]["verified"] == true);
  CHECK(bps["breakpoints"][1]["verified"] == false);
  int id = bps["breakpoints"][0]["id"];
  c.fake->next_stop = stop_info(StopKind::Breakpoint, 9, 0x1007);
  c.ok("continue", {{"threadId", 1}});
  json stop = c.event("stopped");
  CHECK(stop["body"]["reason"] == "breakpoint");
  CHECK(stop["body"]["hitBreakpointIds"][0] == id);
  CHECK(c.fake->last_bps == std::vector<uint64_t>{0x1007});

  json info = c.ok("dataBreakpointInfo", {{"name", "counter"}});
  CHECK(info["dataId"] == "0x5000/4");
  json dbp = c.ok("setDataBreakpoints", {{"breakpoints", {{{"dataId", info["dataId"]}, {"accessType", "write"}}}}});
  CHECK(dbp["breakpoints"][0]["verified"] == true);
  c.fake->next_stop = stop_info(StopKind::Watchpoint, 3, 0, "old value 1, new value 2");
  c.ok("reverseContinue", {{"threadId", 1}});
  stop = c.event("stopped");
  CHECK(stop["body"]["reason"] == "data breakpoint");
  CHECK(stop["body"]["description"].get<std::string>().find("old value 1, new value 2") != std::string::npos);
  CHECK(c.fake->last.watchpoints.size() == 1);
  CHECK(c.fake->last.direction == Direction::Backward);

  c.fake->next_stop = stop_info(StopKind::HistoryEnd, 100);
  c.ok("continue", {{"threadId", 1}});
  CHECK(c.event("stopped")["body"]["reason"] == "end of history");
  c.fake->next_stop = stop_info(StopKind::HistoryBegin, 0);
  c.ok("reverseContinue", {{"threadId", 1}});
  CHECK(c.event("stopped")["body"]["reason"] == "start of history");
}

TEST_CASE("session: state queries") {
  Client c;
  c.launched();
  json st = c.ok("stackTrace", {{"threadId", 1}});
  REQUIRE(st["stackFrames"].size() == 2);
  CHECK(st["stackFrames"][0]["name"] == "main");
  CHECK(st["stackFrames"][0]["line"] == 7);
  CHECK(st["stackFrames"][0]["source"]["path"] == "/src/a.c");
  CHECK(st["stackFrames"][1]["presentationHint"] == "subtle");
  int frame = st["stackFrames"][0]["id"];
  json sc = c.ok("scopes", {{"frameId", frame}});
  int ref = sc["scopes"][0]["variablesReference"];
  json vars = c.ok("variables", {{"variablesReference", ref}});
  CHECK(vars["variables"][0]["value"] == "42");
  json mem = c.ok("readMemory", {{"memoryReference", "0x41"}, {"count", 8}});
  CHECK(mem["data"] == "QUJD");  // "ABC": the known prefix
  CHECK(mem["unreadableBytes"] == 5);
  json dis = c.ok("disassemble", {{"memoryReference", "0x1000"}, {"instructionCount", 3}});
  CHECK(dis["instructions"].size() == 3);
  CHECK(c.ok("evaluate", {{"expression", "eid"}})["result"] == "EID 5 of 100 steps");
  c.ok("evaluate", {{"expression", "seek 42"}});
  json stop = c.event("stopped");
  CHECK(stop["body"]["reason"] == "goto");
  CHECK(c.fake->pos == 42);
  // Handles from before the move are gone.
  CHECK(c.response(c.send("variables", {{"variablesReference", ref}}))["success"] == false);
  json targets = c.ok("gotoTargets", {{"source", {{"path", "/src/a.c"}}}, {"line", 7}});
  c.ok("goto", {{"threadId", 1}, {"targetId", targets["targets"][0]["id"]}});
  c.event("stopped");
  CHECK(c.fake->pos == 77);
}

TEST_CASE("session: after a malformed frame the adapter tells the client and answers the next request") {
  const std::string glued = R"({"seq":900,"type":"request","command":"threads"})";
  const std::pair<const char*, std::string> frames[] = {
      {"negative Content-Length", "Content-Length: -5\r\n\r\n" + glued},
      {"non-numeric Content-Length", "Content-Length: 1e3\r\n\r\n" + glued},
      {"missing Content-Length", "Content-Type: json\r\n\r\n" + glued},
      {"short Content-Length", "Content-Length: 10\r\n\r\n" + glued},
      {"body shorter than declared", "Content-Length: 500\r\n\r\n" + glued},
  };
  Client c;
  c.launched();
  for (const auto& [what, frame] : frames) {
    CAPTURE(what);
    c.raw(frame);
    int s = c.send("threads");
    json out = c.event("output");
    std::string text = out["body"]["output"];
    CHECK((text.find("malformed frame at byte") != std::string::npos || text.find("not valid JSON") != std::string::npos));
    CHECK(c.response(s)["success"] == true);
  }
}

TEST_CASE("session: pause, cancel, disconnect and a closed socket stop a long run") {
  using clock = std::chrono::steady_clock;
  auto ms_since = [](clock::time_point t) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(clock::now() - t).count();
  };
  for (const char* how : {"pause", "cancel"}) {
    CAPTURE(how);
    Client c;
    c.launched();
    c.fake->spin = true;
    c.fake->next_stop = stop_info(StopKind::Step, 50);
    c.ok("continue", {{"threadId", 1}});
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // the run is under way
    auto t0 = clock::now();
    int s = c.send(how, std::string(how) == "cancel" ? json{{"requestId", 1}} : json{{"threadId", 1}});
    json stop = c.event("stopped");
    MESSAGE(std::string(how) << ": stopped " << ms_since(t0) << " ms after the request");
    CHECK(stop["body"]["reason"] == "pause");  // the spin's own end says "step"
    CHECK_FALSE(c.spin_gave_up);
    CHECK(c.response(s)["success"] == true);
    // The flag was cleared: the next run is not cut short at once.
    c.fake->spin = false;
    c.ok("continue", {{"threadId", 1}});
    CHECK(c.event("stopped")["body"]["reason"] == "step");
  }
  {
    Client c;
    c.launched();
    c.fake->spin = true;
    c.ok("reverseContinue", {{"threadId", 1}});
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    auto t0 = clock::now();
    c.send("disconnect");
    c.server.join();
    MESSAGE("disconnect: the adapter ended " << ms_since(t0) << " ms after the request");
    CHECK_FALSE(c.spin_gave_up);
    CHECK(c.rc == 0);
  }
  {
    Client c;
    c.launched();
    c.fake->spin = true;
    c.ok("continue", {{"threadId", 1}});
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    auto t0 = clock::now();
    ::shutdown(c.fds[1], SHUT_RDWR);  // the client goes away mid-run
    c.server.join();
    MESSAGE("closed socket: the adapter ended " << ms_since(t0) << " ms after the close");
    CHECK_FALSE(c.spin_gave_up);
  }
}
