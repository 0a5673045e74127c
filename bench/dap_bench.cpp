// Round trips at the DAP adapter: a timing program that starts `ttd dap`
// as a child process, drives a session over its stdin/stdout like an IDE
// does, and times request -> stopped event for next, stepBack (by line and
// by instruction), a full "UI step" (step + stackTrace + scopes +
// variables), continue to a line breakpoint, and reverseContinue to a data
// breakpoint far back. Figures: docs/performance.md.
//
// Environment:
//   TTD_BENCH_TTD      the ttd executable (default: ./ttd)
//   TTD_BENCH_TRACE    the loop trace (ttd record -o loop.ucir -- build/examples/x86_64/loop 10000000)
//   TTD_BENCH_PROGRAM  the loop program (for source lines)
//   TTD_BENCH_SOURCE   examples/loop.c (to find line numbers)
//   TTD_BENCH_ROUNDS   repetitions per measurement (default 50)
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "dap/protocol/channel.h"
#include "dap/protocol/framing.h"

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

std::string env(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

class Adapter {
 public:
  explicit Adapter(const std::string& ttd) {
    int to_child[2], from_child[2];
    if (::pipe(to_child) != 0 || ::pipe(from_child) != 0) std::exit(1);
    pid_ = ::fork();
    if (pid_ == 0) {
      ::dup2(to_child[0], 0);
      ::dup2(from_child[1], 1);
      ::close(to_child[1]);
      ::close(from_child[0]);
      ::execl(ttd.c_str(), ttd.c_str(), "dap", static_cast<char*>(nullptr));
      std::perror("exec ttd");
      ::_exit(127);
    }
    ::close(to_child[0]);
    ::close(from_child[1]);
    ch_ = std::make_unique<ttd::dap::FdChannel>(from_child[0], to_child[1], true);
    reader_ = std::make_unique<ttd::dap::MessageReader>(*ch_);
  }
  ~Adapter() {
    ch_.reset();
    int st = 0;
    ::waitpid(pid_, &st, 0);
  }
  int send(const std::string& command, const json& args = nullptr) {
    json m = {{"seq", seq_}, {"type", "request"}, {"command", command}};
    if (!args.is_null()) m["arguments"] = args;
    std::string f = ttd::dap::frame_message(m.dump());
    ch_->write_all(f.data(), f.size());
    return seq_++;
  }
  json next() {
    ttd::dap::Frame f = reader_->next();
    if (f.kind != ttd::dap::Frame::Kind::Message) {
      std::fprintf(stderr, "adapter closed the connection\n");
      std::exit(1);
    }
    return json::parse(f.body);
  }
  json call(const std::string& command, const json& args = nullptr) {
    int s = send(command, args);
    for (;;) {
      json m = next();
      if (m["type"] == "event") {
        pending_.push_back(m);
        continue;
      }
      if (m["request_seq"] != s) continue;
      if (m["success"] != true) {
        std::fprintf(stderr, "%s failed: %s\n", command.c_str(), m.value("message", "").c_str());
        std::exit(1);
      }
      return m.value("body", json::object());
    }
  }
  json event(const std::string& name) {
    for (size_t i = 0; i < pending_.size(); ++i)
      if (pending_[i]["event"] == name) {
        json e = pending_[i];
        pending_.erase(pending_.begin() + long(i));
        return e;
      }
    for (;;) {
      json m = next();
      if (m["type"] == "event" && m["event"] == name) return m;
    }
  }
  json stop_after(const std::string& command, const json& args) {
    call(command, args);
    return event("stopped");
  }

 private:
  pid_t pid_ = -1;
  int seq_ = 1;
  std::unique_ptr<ttd::dap::FdChannel> ch_;
  std::unique_ptr<ttd::dap::MessageReader> reader_;
  std::vector<json> pending_;
};

int line_of(const std::string& source, const std::string& text) {
  std::ifstream in(source);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n)
    if (line.find(text) != std::string::npos) return n;
  std::fprintf(stderr, "'%s' not found in %s\n", text.c_str(), source.c_str());
  std::exit(1);
}

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

void report(const char* what, std::vector<double> v) {
  std::sort(v.begin(), v.end());
  double sum = 0;
  for (double x : v) sum += x;
  std::printf("%-48s n=%-4zu median %8.3f ms  p90 %8.3f ms  max %8.3f ms  mean %8.3f ms\n", what, v.size(), v[v.size() / 2],
              v[std::min(v.size() - 1, v.size() * 9 / 10)], v.back(), sum / double(v.size()));
}

uint64_t eid_of(Adapter& a) {
  std::string r = a.call("evaluate", {{"expression", "eid"}, {"context", "repl"}})["result"];
  return std::stoull(r.substr(4));
}

}  // namespace

int main() {
  std::string ttd = env("TTD_BENCH_TTD", "./ttd");
  std::string trace = env("TTD_BENCH_TRACE", "");
  std::string program = env("TTD_BENCH_PROGRAM", "");
  std::string source = env("TTD_BENCH_SOURCE", "examples/loop.c");
  int rounds = std::atoi(env("TTD_BENCH_ROUNDS", "50").c_str());
  if (trace.empty() || program.empty()) {
    std::fprintf(stderr, "set TTD_BENCH_TRACE and TTD_BENCH_PROGRAM (see the comment at the top)\n");
    return 2;
  }
  Adapter a(ttd);
  auto t0 = Clock::now();
  a.call("initialize", {{"clientID", "dap_bench"}});
  a.call("launch", {{"trace", trace}, {"program", program}});
  a.event("initialized");
  a.call("configurationDone");
  json entry = a.event("stopped");
  uint64_t tid = entry["body"]["threadId"];
  std::printf("open + index check + entry stop: %.1f ms\n", ms_since(t0));
  std::string body = "counter++;";
  int line_body = line_of(source, body);
  int line_store = line_of(source, "values[i & 255] = counter;");

  // Continue to a line breakpoint in the loop (first hit, then repeated hits).
  std::vector<double> cont;
  a.call("setBreakpoints", {{"source", {{"path", source}}}, {"breakpoints", {{{"line", line_store}}}}});
  for (int i = 0; i < rounds; ++i) {
    auto t = Clock::now();
    a.stop_after("continue", {{"threadId", tid}});
    cont.push_back(ms_since(t));
  }
  report("continue to a line breakpoint (next iteration)", cont);
  a.call("setBreakpoints", {{"source", {{"path", source}}}, {"breakpoints", json::array()}});

  // Into the middle of the trace.
  a.call("evaluate", {{"expression", "seek end"}, {"context", "repl"}});
  a.event("stopped");
  uint64_t end = eid_of(a);
  uint64_t mid = end / 2;
  a.call("evaluate", {{"expression", "seek " + std::to_string(mid)}, {"context", "repl"}});
  a.event("stopped");
  // Settle on a line start inside the loop.
  a.call("setBreakpoints", {{"source", {{"path", source}}}, {"breakpoints", {{{"line", line_body}}}}});
  a.stop_after("continue", {{"threadId", tid}});
  a.call("setBreakpoints", {{"source", {{"path", source}}}, {"breakpoints", json::array()}});
  std::printf("stepping around EID %llu of %llu\n", static_cast<unsigned long long>(eid_of(a)), static_cast<unsigned long long>(end));

  auto time_steps = [&](const char* what, const std::string& command, const json& extra) {
    std::vector<double> v;
    for (int i = 0; i < rounds; ++i) {
      json args = extra;
      args["threadId"] = tid;
      auto t = Clock::now();
      a.stop_after(command, args);
      v.push_back(ms_since(t));
    }
    report(what, v);
  };
  time_steps("next (line)", "next", json::object());
  time_steps("stepBack (line, no granularity)", "stepBack", json::object());
  time_steps("stepIn (instruction)", "stepIn", {{"granularity", "instruction"}});
  time_steps("stepBack (instruction)", "stepBack", {{"granularity", "instruction"}});

  // What an IDE does per click: the step, then the stack, scopes and locals.
  for (const char* cmd : {"next", "stepBack"}) {
    std::vector<double> v;
    for (int i = 0; i < rounds; ++i) {
      auto t = Clock::now();
      a.stop_after(cmd, {{"threadId", tid}});
      json st = a.call("stackTrace", {{"threadId", tid}, {"startFrame", 0}, {"levels", 20}});
      json sc = a.call("scopes", {{"frameId", st["stackFrames"][0]["id"]}});
      a.call("variables", {{"variablesReference", sc["scopes"][0]["variablesReference"]}});
      v.push_back(ms_since(t));
    }
    report(cmd == std::string("next") ? "next + stackTrace + scopes + locals" : "stepBack + stackTrace + scopes + locals", v);
  }

  // reverseContinue to a data breakpoint far back: `n` is written once,
  // before the loop; from the middle of the trace that is ~50 M steps back.
  for (const char* start : {"mid", "end"}) {
    uint64_t at = std::string(start) == "mid" ? mid : end;
    a.call("setDataBreakpoints", {{"breakpoints", json::array()}});
    a.call("evaluate", {{"expression", "seek " + std::to_string(at)}, {"context", "repl"}});
    a.event("stopped");
    json frames = a.call("stackTrace", {{"threadId", tid}, {"startFrame", 0}, {"levels", 20}});
    uint64_t main_frame = 0;
    for (const auto& f : frames["stackFrames"])
      if (f["name"] == "main") main_frame = f["id"];
    if (!main_frame) {
      std::printf("(no main frame at EID %llu; skipping the data breakpoint from there)\n", static_cast<unsigned long long>(at));
      continue;
    }
    json info = a.call("dataBreakpointInfo", {{"name", "n"}, {"frameId", main_frame}});
    a.call("setDataBreakpoints", {{"breakpoints", {{{"dataId", info["dataId"]}, {"accessType", "write"}}}}});
    auto t = Clock::now();
    json stop = a.stop_after("reverseContinue", {{"threadId", tid}});
    double ms = ms_since(t);
    uint64_t landed = eid_of(a);
    std::printf("reverseContinue to the write of n from EID %llu: %.1f ms, %llu steps back (%s)\n",
                static_cast<unsigned long long>(at), ms, static_cast<unsigned long long>(at - landed),
                stop["body"].value("reason", "").c_str());
  }
  // A watched byte on a page nothing writes after the start (the program
  // name string): the summaries skip every chunk, back to EID 0.
  {
    a.call("evaluate", {{"expression", "seek " + std::to_string(mid)}, {"context", "repl"}});
    a.event("stopped");
    json info = a.call("dataBreakpointInfo", {{"name", "argv[0][0]"}});
    a.call("setDataBreakpoints", {{"breakpoints", {{{"dataId", info["dataId"]}, {"accessType", "write"}}}}});
    auto t = Clock::now();
    json stop = a.stop_after("reverseContinue", {{"threadId", tid}});
    double ms = ms_since(t);
    std::printf("reverseContinue, watch on an untouched page, from EID %llu: %.1f ms to EID %llu (%s)\n",
                static_cast<unsigned long long>(mid), ms, static_cast<unsigned long long>(eid_of(a)),
                stop["body"].value("reason", "").c_str());
  }
  // And to values[0] (written every 256 iterations) from the end.
  {
    a.call("evaluate", {{"expression", "seek " + std::to_string(mid)}, {"context", "repl"}});
    a.event("stopped");
    json info = a.call("dataBreakpointInfo", {{"name", "values[0]"}});
    a.call("setDataBreakpoints", {{"breakpoints", {{{"dataId", info["dataId"]}, {"accessType", "write"}}}}});
    std::vector<double> v;
    for (int i = 0; i < rounds; ++i) {
      auto t = Clock::now();
      a.stop_after("reverseContinue", {{"threadId", tid}});
      v.push_back(ms_since(t));
    }
    report("reverseContinue to values[0] (~2,560 steps back)", v);
  }
  a.call("disconnect");
  return 0;
}
