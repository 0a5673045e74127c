// Index format 9 (issue 17): opening reads the header and directory head
// only; a corrupt blob, table group or group record is found by the read
// that touches it, with an error naming the index file and the byte offset,
// while the rest of the index stays usable; verify() finds it on request.
#include <doctest/doctest.h>

#include <fstream>
#include <string>
#include <vector>

#include "engine/cursor.h"
#include "engine/index_file.h"
#include "engine/motion/timeline.h"
#include "index_file_damage.h"
#include "temp_synthetic_trace.h"

// A namespace of its own: CI's unity build compiles it with its suite's other files.
namespace test_index_lazy {

using namespace ttd;
using test::flip_byte;
using test::group_record;

namespace {

struct TempTrace : test::TempSynthTrace {
  explicit TempTrace(uint64_t steps) : TempSynthTrace(test::make_synthetic(steps, 2, 17)) {}
  OpenOptions options() const { return TempSynthTrace::options(16); }
  std::string index() const { return path + ".ttdidx"; }
};

std::string at_byte(uint64_t offset) { return "at byte " + std::to_string(offset); }

}  // namespace

TEST_CASE("a corrupt step stream is reported by the seek that reads it, open and other seeks are unaffected") {
  TempTrace tt(2000);
  uint64_t bad = 0;
  {
    auto t = Trace::open(tt.path, tt.options());
    REQUIRE(t.ok());
    const IndexFile& idx = (*t)->index();
    REQUIRE(idx.chunk_count() == 125);
    CHECK(idx.verify().ok());
    bad = idx.chunk(124).stream.offset;
  }
  flip_byte(tt.index(), bad);
  auto t = Trace::open(tt.path, tt.options());
  REQUIRE(t.ok());
  // Reused: opening does not read the data region (version 8 hashed it all
  // and rebuilt here).
  CHECK((*t)->stats().reused);
  Cursor c(*t);
  CHECK(c.seek(0).ok());
  CHECK(c.seek(1000).ok());
  auto s = c.seek(1999);
  REQUIRE_FALSE(s.ok());
  const std::string msg = s.error().to_string();
  CHECK(msg.find(tt.index()) != std::string::npos);
  CHECK(msg.find(at_byte(bad)) != std::string::npos);
  CHECK(msg.find("index chunk 124 is corrupt") != std::string::npos);
  CHECK(msg.find("checksum") != std::string::npos);
  auto v = (*t)->index().verify();
  REQUIRE_FALSE(v.ok());
  CHECK(v.error().offset == bad);
  // A rebuild repairs it.
  OpenOptions o = tt.options();
  o.rebuild = true;
  auto r = Trace::open(tt.path, o);
  REQUIRE(r.ok());
  CHECK((*r)->index().verify().ok());
  Cursor rc(*r);
  CHECK(rc.seek(1999).ok());
}

TEST_CASE("a corrupt summary group answers 'maybe' and names its offset, verify finds it") {
  TempTrace tt(2000);
  uint64_t bad = 0;
  {
    auto t = Trace::open(tt.path, tt.options());
    REQUIRE(t.ok());
    const IndexFile& idx = (*t)->index();
    CHECK_FALSE(idx.summary(40)->corrupt);
    bad = group_record(idx, IndexTable::Summaries, 1).offset;  // chunks 32..63
  }
  flip_byte(tt.index(), bad);
  auto t = Trace::open(tt.path, tt.options());
  REQUIRE(t.ok());
  const IndexFile& idx = (*t)->index();
  CHECK_FALSE(idx.summary(0)->corrupt);
  auto s = idx.summary(40);
  CHECK(s->corrupt);
  CHECK(s->has_pc(0x1234));
  CHECK(s->writes(0x10, 1));
  Error e = idx.chunk_error(40);
  CHECK(e.offset == bad);
  CHECK(e.to_string().find(tt.index()) != std::string::npos);
  auto v = idx.verify();
  REQUIRE_FALSE(v.ok());
  CHECK(v.error().offset == bad);
  // Seeks do not need summaries.
  Cursor c(*t);
  CHECK(c.seek(40 * 16 + 3).ok());
}

TEST_CASE("a corrupt group record of the page table fails the reads that need it, naming the record") {
  TempTrace tt(2000);
  uint64_t record_at = 0;
  {
    auto t = Trace::open(tt.path, tt.options());
    REQUIRE(t.ok());
    const IndexFile& idx = (*t)->index();
    REQUIRE(idx.page_count() > 0);
    record_at = idx.table(IndexTable::Pages).index_offset;
  }
  flip_byte(tt.index(), record_at + 4);
  auto t = Trace::open(tt.path, tt.options());
  REQUIRE(t.ok());
  const IndexFile& idx = (*t)->index();
  BlobRef ref;
  CHECK_FALSE(idx.page_ref(0, ref));
  Error e = idx.chunk_error(0);
  CHECK(e.offset == record_at);
  CHECK(e.message.find("page table group 0") != std::string::npos);
  auto v = idx.verify();
  REQUIRE_FALSE(v.ok());
  CHECK(v.error().offset == record_at);
}

TEST_CASE("a corrupt chunk table group leaves the chunk's blobs unreadable, with the group's offset") {
  TempTrace tt(2000);
  uint64_t bad = 0;
  {
    auto t = Trace::open(tt.path, tt.options());
    REQUIRE(t.ok());
    bad = group_record((*t)->index(), IndexTable::Chunks, 0).offset;
  }
  flip_byte(tt.index(), bad);
  auto t = Trace::open(tt.path, tt.options());
  REQUIRE(t.ok());
  Cursor c(*t);
  auto s = c.seek(5);
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().offset == bad);
  CHECK(s.error().to_string().find("index chunk 0 is corrupt") != std::string::npos);
}

TEST_CASE("continue and reverse-continue report a chunk they cannot read instead of skipping it") {
  // Before: the scan treated an unreadable chunk as one without a hit and
  // went on, so a run could stop at an earlier (reverse) or later (forward)
  // breakpoint hit than the real next one, or report the end of history.
  TempTrace tt(2000);
  uint64_t back_pc = 0, fwd_pc = 0, bad_back = 0, bad_fwd = 0;
  {
    auto t = Trace::open(tt.path, tt.options());
    REQUIRE(t.ok());
    const IndexFile& idx = (*t)->index();
    REQUIRE(idx.chunk(124).first_eid == 1984);
    REQUIRE(idx.chunk(62).first_eid == 992);
    Cursor c(*t);
    REQUIRE(c.seek(1983).ok());
    back_pc = c.current_step()->pc;  // in chunk 123, the first one a reverse run from 1984 reads
    REQUIRE(c.seek(993).ok());
    fwd_pc = c.current_step()->pc;  // in chunk 62, the first one a forward run from 991 reads
    bad_back = idx.chunk(123).stream.offset;
    bad_fwd = idx.chunk(62).stream.offset;
  }
  flip_byte(tt.index(), bad_back);
  flip_byte(tt.index(), bad_fwd);
  auto t = Trace::open(tt.path, tt.options());
  REQUIRE(t.ok());
  std::shared_ptr<const Trace> trace = std::move(*t);
  {
    Timeline tl(trace);
    REQUIRE(tl.seek(1984).ok());
    StopConditions c;
    c.breakpoints = {back_pc};
    Stop st = tl.run(Direction::Backward, c);
    REQUIRE(st.error.has_value());
    CHECK(st.error->to_string().find("index chunk 123 is corrupt") != std::string::npos);
    CHECK(st.error->to_string().find(at_byte(bad_back)) != std::string::npos);
  }
  {
    Timeline tl(trace);
    REQUIRE(tl.seek(991).ok());  // the last step of chunk 61, readable
    StopConditions c;
    c.breakpoints = {fwd_pc};
    Stop st = tl.run(Direction::Forward, c);
    REQUIRE(st.error.has_value());
    CHECK(st.error->to_string().find("index chunk 62 is corrupt") != std::string::npos);
  }
}

TEST_CASE("a thread's next step across a chunk that cannot be read is an error, not the end of history") {
  TempTrace tt(2000);  // two threads: per-thread steps read the step timeline
  uint64_t bad = 0, tid = 0;
  {
    auto t = Trace::open(tt.path, tt.options());
    REQUIRE(t.ok());
    REQUIRE((*t)->threads().size() == 2);
    bad = (*t)->index().chunk(62).stream.offset;
    Cursor c(*t);
    REQUIRE(c.seek(991).ok());
    tid = c.current_step()->tid;
  }
  flip_byte(tt.index(), bad);
  auto t = Trace::open(tt.path, tt.options());
  REQUIRE(t.ok());
  Timeline tl(std::shared_ptr<const Trace>(std::move(*t)));
  REQUIRE(tl.seek(991).ok());
  Stop st = tl.step(Direction::Forward, tid);
  REQUIRE(st.error.has_value());
  CHECK(st.error->to_string().find("could not be read") != std::string::npos);
  CHECK(st.kind != StopKind::HistoryEnd);
}

TEST_CASE("chunk_passing gives chunk()'s entry without caching the group, a corrupt group leaves its refs empty") {
  TempTrace tt(20000);  // 1,250 chunks of 16 steps: two chunk-table groups
  std::vector<ChunkEntry> want;
  {
    auto t = Trace::open(tt.path, tt.options());
    REQUIRE(t.ok());
    const IndexFile& idx = (*t)->index();
    REQUIRE(idx.chunk_count() > kGroupEntries[0]);
    for (size_t c = 0; c < idx.chunk_count(); ++c) want.push_back(idx.chunk(c));
  }
  auto same = [](const ChunkEntry& a, const ChunkEntry& b) {
    return a.first_eid == b.first_eid && a.steps == b.steps && a.stream.offset == b.stream.offset &&
           a.stream.checksum == b.stream.checksum && a.keyframe.offset == b.keyframe.offset &&
           a.keyframe.size == b.keyframe.size && a.keyframe.checksum == b.keyframe.checksum;
  };
  {
    auto t = Trace::open(tt.path, tt.options());
    REQUIRE(t.ok());
    const IndexFile& idx = (*t)->index();
    // Alternate groups so the scratch buffer is refilled each time.
    for (size_t i = 0; i < want.size(); ++i) {
      const size_t c = i % 2 ? want.size() - 1 - i / 2 : i / 2;
      CHECK(same(idx.chunk_passing(c), want[c]));
    }
    CHECK(same(idx.chunk_passing(want.size() - 1), idx.chunk(want.size() - 1)));
  }
  uint64_t bad = 0;
  {
    auto t = Trace::open(tt.path, tt.options());
    REQUIRE(t.ok());
    bad = group_record((*t)->index(), IndexTable::Chunks, 1).offset;
  }
  flip_byte(tt.index(), bad);
  auto t = Trace::open(tt.path, tt.options());
  REQUIRE(t.ok());
  const IndexFile& idx = (*t)->index();
  CHECK(same(idx.chunk_passing(3), want[3]));  // group 0 is intact
  const ChunkEntry e = idx.chunk_passing(kGroupEntries[0] + 3);
  CHECK(e.first_eid == want[kGroupEntries[0] + 3].first_eid);
  CHECK(e.keyframe.offset == 0);
  CHECK(e.keyframe.size == 0);
}

}  // namespace test_index_lazy
