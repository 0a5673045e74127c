// Stale-index detection (issue 21): an edit in the middle of the trace
// with its mtime put back is noticed (ctime, then the whole-trace hash);
// a copy with its times (`cp -p`) keeps its index after the hash agrees;
// a failed rebuild leaves no index to be reused.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/stat.h>

#include <filesystem>
#include <string>

#include "engine/source_stamp.h"
#include "engine/trace.h"
#include "index_safety_support.h"
#include "state/host_cpus.h"
#include "tests/support/one_cpu_affinity.h"

using namespace ttd;
using namespace ttd::test;
namespace fs = std::filesystem;

namespace {
// 1 MiB: far more than the 64 KiB head and tail the old fingerprint read.
std::string big_trace_bytes(char fill) { return std::string(size_t(1) << 20, fill); }

// Sets p's atime and mtime to those of `like` (what `touch -r` and `cp -p` do).
void copy_times(const std::string& like, const std::string& p) {
  struct stat st {};
  REQUIRE(::stat(like.c_str(), &st) == 0);
  timespec times[2] = {st.st_atim, st.st_mtim};
  REQUIRE(::utimensat(AT_FDCWD, p.c_str(), times, 0) == 0);
}
}  // namespace

TEST_CASE("an edit in the middle of the trace with its mtime restored makes the index stale") {
  ScratchDir d;
  std::string trace = d / "t.trace";
  spit(trace, big_trace_bytes('a'));
  OpenOptions o = text_reader_options();
  REQUIRE(Trace::open(trace, o).ok());
  spit(d / "saved", "");
  copy_times(trace, d / "saved");

  std::string bytes = slurp(trace);
  bytes[bytes.size() / 2] = 'b';
  spit(trace, bytes);
  copy_times(d / "saved", trace);  // size and mtime as before the edit

  auto t = Trace::open(trace, o);
  REQUIRE(t.ok());
  CHECK_FALSE((*t)->stats().reused);
}

TEST_CASE("a trace copied with its times keeps its index when the content agrees") {
  if (usable_cpus() == 1) return;  // one CPU: no content hash is recorded (next case)
  ScratchDir d;
  spit(d / "t.trace", big_trace_bytes('a'));
  OpenOptions o = text_reader_options();
  REQUIRE(Trace::open(d / "t.trace", o).ok());
  // cp -p of the trace and its index: another inode and ctime, same size and mtime.
  fs::copy_file(d / "t.trace", d / "c.trace");
  copy_times(d / "t.trace", d / "c.trace");
  fs::copy_file(d / "t.trace.ttdidx", d / "c.trace.ttdidx");
  auto same = Trace::open(d / "c.trace", o);
  REQUIRE(same.ok());
  CHECK((*same)->stats().reused);

  // A copy that differs in the middle, times copied: rebuilt.
  std::string bytes = big_trace_bytes('a');
  bytes[bytes.size() / 2] = 'b';
  spit(d / "e.trace", bytes);
  copy_times(d / "t.trace", d / "e.trace");
  fs::copy_file(d / "t.trace.ttdidx", d / "e.trace.ttdidx");
  auto edited = Trace::open(d / "e.trace", o);
  REQUIRE(edited.ok());
  CHECK_FALSE((*edited)->stats().reused);
}

TEST_CASE("built on one CPU (no content hash), a copied trace is rebuilt, not trusted") {
  OneCpuAffinity one;
  if (usable_cpus() != 1) return;  // could not pin
  ScratchDir d;
  spit(d / "t.trace", big_trace_bytes('a'));
  OpenOptions o = text_reader_options();
  REQUIRE(Trace::open(d / "t.trace", o).ok());
  fs::copy_file(d / "t.trace", d / "c.trace");
  copy_times(d / "t.trace", d / "c.trace");
  fs::copy_file(d / "t.trace.ttdidx", d / "c.trace.ttdidx");
  auto copy = Trace::open(d / "c.trace", o);
  REQUIRE(copy.ok());
  CHECK_FALSE((*copy)->stats().reused);
}

TEST_CASE("a failed rebuild does not leave the old index to be reused") {
  ScratchDir d;
  spit(d / "t.trace", "trace");
  REQUIRE(Trace::open(d / "t.trace", text_reader_options()).ok());
  OpenOptions broken = text_reader_options([](TextReader& r) {
    r.midway = [] { return Status(make_error("t.trace", "damaged record")); };
  });
  broken.rebuild = true;
  auto failed = Trace::open(d / "t.trace", broken);
  REQUIRE_FALSE(failed.ok());
  CHECK(failed.error().to_string().find("damaged record") != std::string::npos);
  auto next = Trace::open(d / "t.trace", text_reader_options());
  REQUIRE(next.ok());
  CHECK_FALSE((*next)->stats().reused);
}

TEST_CASE("source stamps: identity, content hash and the verdicts") {
  ScratchDir d;
  spit(d / "t.trace", big_trace_bytes('a'));
  auto s = stamp_source(d / "t.trace");
  REQUIRE(s.ok());
  CHECK(s->size == (size_t(1) << 20));
  auto h = hash_source_content(d / "t.trace");
  REQUIRE(h.ok());
  CHECK(*h != 0);
  SourceStamp recorded = *s;
  recorded.content_hash = *h;
  CHECK(judge_freshness(recorded, *s) == Freshness::Fresh);
  SourceStamp moved = *s;
  moved.identity ^= 1;
  CHECK(judge_freshness(recorded, moved) == Freshness::ContentCheckNeeded);
  SourceStamp resized = *s;
  resized.size += 1;
  CHECK(judge_freshness(recorded, resized) == Freshness::Stale);
  recorded.content_hash = 0;  // never computed: no way to check a copy
  CHECK(judge_freshness(recorded, moved) == Freshness::Stale);
  // A directory trace hashes its files' names and contents.
  fs::create_directory(d / "dir");
  spit(d / "dir/a", "1");
  auto h1 = hash_source_content(d / "dir");
  spit(d / "dir/a", "2");
  auto h2 = hash_source_content(d / "dir");
  REQUIRE((h1.ok() && h2.ok()));
  CHECK(*h1 != *h2);
}
