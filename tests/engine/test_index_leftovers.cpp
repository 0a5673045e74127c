// Temporary files of index builds (issue 21): those of dead builds are
// removed by the next open, a live build's is left alone, a build killed
// by SIGTERM (with the CLI's handlers) removes its own, and two builds of
// one trace at once in one process do not write into each other's file.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "engine/index_temp_files.h"
#include "engine/trace.h"
#include "index_safety_support.h"

using namespace ttd;
using namespace ttd::test;
namespace fs = std::filesystem;

namespace {
// A PID that is certainly not running: a child that has exited and been reaped.
pid_t dead_pid() {
  pid_t p = ::fork();
  if (p == 0) ::_exit(0);
  int st = 0;
  ::waitpid(p, &st, 0);
  return p;
}

std::vector<std::string> temp_files(const ScratchDir& d) {
  std::vector<std::string> out;
  for (auto& e : fs::directory_iterator(d.path))
    if (e.path().filename().string().find(".tmp.") != std::string::npos) out.push_back(e.path().filename().string());
  return out;
}
}  // namespace

TEST_CASE("temporary files of builds that died are removed by the next open, a live build's stays") {
  ScratchDir d;
  spit(d / "t.trace", "trace");
  std::string dead = std::to_string(dead_pid());
  std::string live = std::to_string(::getpid());
  spit(d / ("t.trace.ttdidx.tmp." + dead), "half an index");      // the name before version 8
  spit(d / ("t.trace.ttdidx.tmp." + dead + ".3"), "half an index");
  spit(d / ("t.trace.ttdidx.tmp." + live + ".999"), "being written");
  spit(d / "t.trace.ttdidx.tmp.notes", "not ours");
  // The live one is locked as a build holds it.
  int fd = ::open((d / ("t.trace.ttdidx.tmp." + live + ".999")).c_str(), O_RDWR);
  REQUIRE(fd >= 0);
  REQUIRE(::flock(fd, LOCK_EX | LOCK_NB) == 0);
  REQUIRE(Trace::open(d / "t.trace", text_reader_options()).ok());
  ::close(fd);
  auto left = temp_files(d);
  std::sort(left.begin(), left.end());
  CHECK(left == std::vector<std::string>{"t.trace.ttdidx.tmp." + live + ".999", "t.trace.ttdidx.tmp.notes"});
}

TEST_CASE("a build killed by SIGTERM removes its temporary file (CLI signal handlers)") {
  ScratchDir d;
  spit(d / "t.trace", "trace");
  pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    ::signal(SIGTERM, SIG_DFL);  // doctest's crash handler: a program starts with the default
    remove_temp_files_on_signals();
    OpenOptions o = text_reader_options([](TextReader& r) {
      r.midway = [] {
        ::raise(SIGTERM);  // mid-build: the temporary file exists
        return Status();
      };
    });
    (void)Trace::open(d / "t.trace", o);
    ::_exit(0);  // not reached when the handler re-raises
  }
  int st = 0;
  REQUIRE(::waitpid(child, &st, 0) == child);
  CHECK(WIFSIGNALED(st));
  if (WIFSIGNALED(st)) CHECK(WTERMSIG(st) == SIGTERM);
  CHECK(temp_files(d).empty());
  CHECK_FALSE(fs::exists(d / "t.trace.ttdidx"));
}

TEST_CASE("two builds of one trace at once in one process each get a whole index") {
  ScratchDir d;
  spit(d / "t.trace", "trace");
  for (int round = 0; round < 5; ++round) {
    std::vector<std::shared_ptr<Trace>> traces(2);
    std::vector<std::thread> builders;
    for (int i = 0; i < 2; ++i)
      builders.emplace_back([&, i] {
        OpenOptions o = text_reader_options();
        o.rebuild = true;
        o.keyframe_interval = i ? 16 : 32;  // different layouts: mixing them up shows
        auto t = Trace::open(d / "t.trace", o);
        if (t) traces[i] = *t;
      });
    for (auto& b : builders) b.join();
    for (int i = 0; i < 2; ++i) {
      REQUIRE(traces[i]);
      CHECK(traces[i]->chunk_steps() == (i ? 16u : 32u));
      uint64_t n = 0;
      CHECK(traces[i]->for_each_step(0, 40, [&](const StepRecord& r) {
        CHECK(r.info.pc == 0x1000 + n++);
        return true;
      }).ok());
      CHECK(n == 40);
    }
  }
  CHECK(temp_files(d).empty());
}
