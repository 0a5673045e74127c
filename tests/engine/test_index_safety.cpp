// What Trace::open may write over (issue 21): never a file that is not
// this trace's index, never a device, FIFO or directory, never a valid
// index of another trace; a FIFO as the trace or the index is refused
// without blocking; the keyframe interval is checked for every front end;
// a valid index beside a trace in a read-only folder is used.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <future>
#include <string>

#include "engine/trace.h"
#include "index_safety_support.h"

using namespace ttd;
using namespace ttd::test;
namespace fs = std::filesystem;

namespace {
// Runs Trace::open on another thread; if it has not returned within 10 s
// (blocked in open() on a FIFO), unblocks it by opening the FIFO for
// writing and fails.
Result<std::shared_ptr<Trace>> open_within_10s(const std::string& trace, const OpenOptions& o,
                                               const std::string& fifo) {
  auto fut = std::async(std::launch::async, [&] { return Trace::open(trace, o); });
  if (fut.wait_for(std::chrono::seconds(10)) != std::future_status::ready) {
    FAIL_CHECK("Trace::open blocked on the FIFO " << fifo);
    int fd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
    if (fd < 0) fd = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
    auto r = fut.get();
    if (fd >= 0) ::close(fd);
    return r;
  }
  return fut.get();
}
}  // namespace

TEST_CASE("--index naming a file that is not a ttd index is refused and left as it was") {
  ScratchDir d;
  spit(d / "t.trace", "trace");
  spit(d / "x.txt", "notes\n");
  OpenOptions o = text_reader_options();
  o.index_path = d / "x.txt";
  auto t = Trace::open(d / "t.trace", o);
  REQUIRE_FALSE(t.ok());
  CHECK(t.error().to_string().find(d / "x.txt") != std::string::npos);
  CHECK(t.error().to_string().find("not a ttd index") != std::string::npos);
  CHECK(slurp(d / "x.txt") == "notes\n");
}

TEST_CASE("--index naming a directory, a FIFO or a device is refused") {
  ScratchDir d;
  spit(d / "t.trace", "trace");
  fs::create_directory(d / "dir");
  REQUIRE(::mkfifo((d / "fifo").c_str(), 0600) == 0);
  std::vector<std::pair<std::string, std::string>> cases = {{d / "dir", "a directory"}, {d / "fifo", "a FIFO"}};
  // A device node of our own (the null device's numbers) when we may make one.
  if (::mknod((d / "null").c_str(), S_IFCHR | 0600, makedev(1, 3)) == 0) cases.push_back({d / "null", "character device"});
  for (auto& [path, kind] : cases) {
    CAPTURE(path);
    OpenOptions o = text_reader_options();
    o.index_path = path;
    auto t = open_within_10s(d / "t.trace", o, path);
    REQUIRE_FALSE(t.ok());
    CHECK(t.error().to_string().find(path) != std::string::npos);
    CHECK(t.error().to_string().find(kind) != std::string::npos);
  }
  CHECK(fs::is_directory(d / "dir"));
  CHECK(fs::is_fifo(d / "fifo"));
  if (fs::exists(d / "null")) CHECK(fs::is_character_file(d / "null"));
}

TEST_CASE("a valid index of another trace is not overwritten, this trace's own stale one is rebuilt") {
  ScratchDir d;
  spit(d / "a.trace", "trace a");
  spit(d / "b.trace", "trace b, longer");
  OpenOptions o = text_reader_options();
  o.index_path = d / "shared.ttdidx";
  REQUIRE(Trace::open(d / "a.trace", o).ok());  // a missing path is created
  std::string a_index = slurp(d / "shared.ttdidx");
  REQUIRE(a_index.size() > 96);

  auto b = Trace::open(d / "b.trace", o);
  REQUIRE_FALSE(b.ok());
  CHECK(b.error().to_string().find("index of another trace") != std::string::npos);
  CHECK(slurp(d / "shared.ttdidx") == a_index);
  auto again = Trace::open(d / "a.trace", o);
  REQUIRE(again.ok());
  CHECK((*again)->stats().reused);

  // a changes: its own index at the explicit path is rebuilt.
  spit(d / "a.trace", "trace a, edited");
  auto edited = Trace::open(d / "a.trace", o);
  REQUIRE(edited.ok());
  CHECK_FALSE((*edited)->stats().reused);

  // A damaged ttd index (magic intact) and an empty file are replaced too.
  // (The directory head, last in the file, is checked at open; a damaged
  // blob only when read: test_index_lazy.cpp.)
  std::string damaged = slurp(d / "shared.ttdidx");
  damaged[damaged.size() - 2] ^= 0x55;
  spit(d / "shared.ttdidx", damaged);
  auto rebuilt = Trace::open(d / "a.trace", o);
  REQUIRE(rebuilt.ok());
  CHECK_FALSE((*rebuilt)->stats().reused);
  spit(d / "empty.ttdidx", "");
  o.index_path = d / "empty.ttdidx";
  CHECK(Trace::open(d / "b.trace", o).ok());
}

TEST_CASE("a FIFO as the trace is refused without blocking") {
  ScratchDir d;
  REQUIRE(::mkfifo((d / "t.fifo").c_str(), 0600) == 0);
  OpenOptions o;  // the real readers: the stamp must refuse before any of them opens it
  auto t = open_within_10s(d / "t.fifo", o, d / "t.fifo");
  REQUIRE_FALSE(t.ok());
  CHECK(t.error().to_string().find("FIFO") != std::string::npos);
  CHECK_FALSE(fs::exists(d / "t.fifo.ttdidx"));
}

TEST_CASE("the keyframe interval is checked by the engine for every front end") {
  ScratchDir d;
  spit(d / "t.trace", "trace");
  for (uint32_t k : {0u, 1u, 15u, kMaxKeyframeInterval + 1}) {
    CAPTURE(k);
    OpenOptions o = text_reader_options();
    o.keyframe_interval = k;
    auto t = Trace::open(d / "t.trace", o);
    REQUIRE_FALSE(t.ok());
    CHECK(t.error().to_string().find("keyframe_interval") != std::string::npos);
    CHECK_FALSE(fs::exists(d / "t.trace.ttdidx"));
  }
  OpenOptions o = text_reader_options();
  o.keyframe_interval = kMinKeyframeInterval;
  CHECK(Trace::open(d / "t.trace", o).ok());
  CHECK(kDefaultKeyframeInterval >= kMinKeyframeInterval);
}

TEST_CASE("a valid index beside a trace in a read-only folder is used, not rebuilt into the cache") {
  ScratchDir d;
  fs::create_directory(d / "cache");
  spit(d / "t.trace", "trace");
  OpenOptions o = text_reader_options();
  REQUIRE(Trace::open(d / "t.trace", o).ok());  // built beside the trace
  REQUIRE(fs::exists(d / "t.trace.ttdidx"));
  // Read-only as far as the engine can tell (as root only a read-only mount
  // would make access(W_OK) fail).
  o.folder_writable = [](const std::string&) { return false; };
  o.cache_dir = d / "cache";
  auto t = Trace::open(d / "t.trace", o);
  REQUIRE(t.ok());
  CHECK((*t)->stats().reused);
  CHECK((*t)->stats().index_path == fs::absolute(d / "t.trace").string() + ".ttdidx");
  CHECK(fs::is_empty(d / "cache"));

  // A stale one beside it cannot be rebuilt there: the cache takes the new one.
  spit(d / "t.trace", "trace, edited");
  auto stale = Trace::open(d / "t.trace", o);
  REQUIRE(stale.ok());
  CHECK_FALSE((*stale)->stats().reused);
  CHECK((*stale)->stats().index_path.rfind(d / "cache", 0) == 0);
}
