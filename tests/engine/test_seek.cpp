// Keyframe seek reaches exactly the state linear replay reaches, at every
// EID, in any seek order; the index is reused, rebuilt when stale or corrupt.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>

#include "engine/cursor.h"
#include "engine/index_file.h"
#include "temp_synthetic_trace.h"

using namespace ttd;
namespace fs = std::filesystem;

namespace {

struct TempTrace : test::TempSynthTrace {
  TempTrace(uint64_t steps, uint32_t threads, uint64_t seed, ArchId arch = ArchId::X86_64)
      : TempSynthTrace(test::make_synthetic(steps, threads, seed, arch)) {}
  OpenOptions options(uint32_t k = 16) const { return TempSynthTrace::options(k); }
};

}  // namespace

TEST_CASE("seek reaches the linear-replay state at every EID, forwards, backwards and at random") {
  for (uint32_t threads : {1u, 3u}) {
    TempTrace tt(500, threads, 42 + threads);
    auto t = Trace::open(tt.path, tt.options(16));
    REQUIRE(t.ok());
    REQUIRE((*t)->step_count() == 500);
    auto ref = test::reference_digests(*tt.synth);
    Cursor c(*t);
    for (uint64_t e = 0; e <= 500; ++e) {
      REQUIRE(c.seek(e).ok());
      CHECK_MESSAGE(c.state().digest() == ref[e], "forward EID ", e);
    }
    for (uint64_t e = 501; e-- > 0;) {
      REQUIRE(c.seek(e).ok());
      CHECK_MESSAGE(c.state().digest() == ref[e], "backward EID ", e);
    }
    std::mt19937 rng(7);
    for (int i = 0; i < 300; ++i) {
      uint64_t e = rng() % 501;
      REQUIRE(c.seek(e).ok());
      CHECK_MESSAGE(c.state().digest() == ref[e], "random EID ", e);
    }
  }
}

TEST_CASE("seek past the end is an error naming the range") {
  TempTrace tt(50, 1, 1);
  auto t = Trace::open(tt.path, tt.options());
  REQUIRE(t.ok());
  Cursor c(*t);
  auto s = c.seek(51);
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().to_string().find("out of range") != std::string::npos);
  CHECK(c.seek(50).ok());
}

TEST_CASE("the index is reused, and rebuilt when the trace changes or the index is corrupt") {
  TempTrace tt(200, 1, 3);
  {
    auto t = Trace::open(tt.path, tt.options());
    REQUIRE(t.ok());
    CHECK_FALSE((*t)->stats().reused);
  }
  {
    auto t = Trace::open(tt.path, tt.options());
    REQUIRE(t.ok());
    CHECK((*t)->stats().reused);
  }
  // Corrupt one byte of the directory head: detected at open, rebuilt.
  // (A corrupt blob is found by the read that touches it: test_index_lazy.)
  {
    std::fstream f(tt.path + ".ttdidx", std::ios::in | std::ios::out | std::ios::binary);
    IndexHeader h;
    f.read(reinterpret_cast<char*>(&h), sizeof h);
    f.seekg(std::streamoff(h.dir_offset + h.dir_size / 2));
    char b = 0;
    f.read(&b, 1);
    f.seekp(std::streamoff(h.dir_offset + h.dir_size / 2));
    b ^= 0x55;
    f.write(&b, 1);
  }
  {
    auto t = Trace::open(tt.path, tt.options());
    REQUIRE(t.ok());
    CHECK_FALSE((*t)->stats().reused);
  }
  // Change the trace: stale, rebuilt.
  std::ofstream(tt.path, std::ios::app) << " changed";
  {
    auto t = Trace::open(tt.path, tt.options());
    REQUIRE(t.ok());
    CHECK_FALSE((*t)->stats().reused);
  }
  // No temporary files left behind.
  for (auto& e : fs::directory_iterator(fs::path(tt.path).parent_path()))
    CHECK(e.path().string().find(fs::path(tt.path).filename().string() + ".ttdidx.tmp") == std::string::npos);
}

TEST_CASE("a reader error leaves no index behind") {
  TempTrace tt(10, 1, 3);
  OpenOptions o;
  struct Failing : fmt::TraceReader {
    Status read(fmt::TraceSink& sink, const fmt::Progress&) override {
      fmt::TraceInfo info;
      sink.begin(info);
      sink.step({1, 1, 0x1000, 4, fmt::StepKind::Instruction});
      return make_error_at("x.trace", 1234, "broken record");
    }
  };
  o.reader_factory = []() -> Result<std::unique_ptr<fmt::TraceReader>> { return std::unique_ptr<fmt::TraceReader>(new Failing); };
  auto t = Trace::open(tt.path, o);
  REQUIRE_FALSE(t.ok());
  CHECK(t.error().to_string() == "x.trace: at byte 1234: broken record");
  CHECK_FALSE(fs::exists(tt.path + ".ttdidx"));
  for (auto& e : fs::directory_iterator(fs::path(tt.path).parent_path()))
    CHECK(e.path().string().find(fs::path(tt.path).filename().string() + ".ttdidx.tmp") == std::string::npos);
}

TEST_CASE("steps decode with their attributes and effects") {
  TempTrace tt(40, 1, 9);
  auto t = Trace::open(tt.path, tt.options(16));
  REQUIRE(t.ok());
  std::vector<StepRecord> got;
  REQUIRE((*t)->for_each_step(10, 20, [&](const StepRecord& r) {
    got.push_back(r);
    return true;
  }).ok());
  REQUIRE(got.size() == 10);
  for (size_t i = 0; i < got.size(); ++i) {
    const auto& want = tt.synth->steps[10 + i];
    CHECK(got[i].eid == 10 + i);
    CHECK(got[i].info.pc == want.info.pc);
    CHECK(got[i].info.tid == want.info.tid);
    REQUIRE(got[i].attrs.size() == 1);
    CHECK(got[i].attrs[0].first == "k");
    REQUIRE(got[i].regs.size() == 1);
    CHECK(got[i].regs[0].value == want.effects[0].bytes);
  }
}

TEST_CASE("a just-built index, taken from its builder, equals the same index parsed from its file") {
  // Trace::open after a build adopts the builder's tables (IndexFile::adopt)
  // instead of parsing the file it wrote; the next open parses the file.
  TempTrace tt(500, 3, 11);
  auto built = Trace::open(tt.path, tt.options());
  REQUIRE(built.ok());
  REQUIRE_FALSE((*built)->stats().reused);
  auto parsed = Trace::open(tt.path, tt.options());
  REQUIRE(parsed.ok());
  REQUIRE((*parsed)->stats().reused);
  const IndexFile& a = (*built)->index();
  const IndexFile& b = (*parsed)->index();
  CHECK(a.file_size() == b.file_size());
  CHECK(a.chunk_steps() == b.chunk_steps());
  CHECK(a.meta().step_count == b.meta().step_count);
  CHECK(a.meta().unique_pages == b.meta().unique_pages);
  CHECK(a.meta().attr_keys == b.meta().attr_keys);
  CHECK(a.meta().info.format == b.meta().info.format);
  CHECK(a.meta().info.properties == b.meta().info.properties);
  REQUIRE(a.meta().threads.size() == b.meta().threads.size());
  for (size_t i = 0; i < a.meta().threads.size(); ++i) {
    CHECK(a.meta().threads[i].tid == b.meta().threads[i].tid);
    CHECK(a.meta().threads[i].first_eid == b.meta().threads[i].first_eid);
    CHECK(a.meta().threads[i].last_eid == b.meta().threads[i].last_eid);
    CHECK(a.meta().threads[i].steps == b.meta().threads[i].steps);
  }
  CHECK(a.thread_slots().size() == b.thread_slots().size());
  auto same_refs = [](const std::vector<BlobRef>& x, const std::vector<BlobRef>& y) {
    if (x.size() != y.size()) return false;
    for (size_t i = 0; i < x.size(); ++i)
      if (x[i].offset != y[i].offset || x[i].size != y[i].size || x[i].raw_size != y[i].raw_size) return false;
    return true;
  };
  auto all_refs = [](const IndexFile& f, bool pages) {
    std::vector<BlobRef> v(pages ? f.page_count() : f.segment_count());
    for (uint64_t id = 0; id < v.size(); ++id) CHECK((pages ? f.page_ref(id, v[id]) : f.segment_ref(id, v[id])));
    return v;
  };
  CHECK(same_refs(all_refs(a, true), all_refs(b, true)));
  CHECK(same_refs(all_refs(a, false), all_refs(b, false)));
  REQUIRE(a.chunk_count() == b.chunk_count());
  for (size_t i = 0; i < a.chunk_count(); ++i) {
    const ChunkEntry x = a.chunk(i);
    const ChunkEntry y = b.chunk(i);
    CHECK(x.first_eid == y.first_eid);
    CHECK(x.steps == y.steps);
    CHECK(same_refs({x.stream, x.keyframe}, {y.stream, y.keyframe}));
    const ChunkSummary& xs = *a.summary(i);
    const ChunkSummary& ys = *b.summary(i);
    CHECK(xs.pcs == ys.pcs);
    CHECK(xs.pages_read == ys.pages_read);
    CHECK(xs.pages_written == ys.pages_written);
    CHECK(xs.threads == ys.threads);
    CHECK(xs.lines_read == ys.lines_read);
    CHECK(xs.lines_written == ys.lines_written);
    CHECK(xs.line_slots_read == ys.line_slots_read);
    CHECK(xs.line_slots_written == ys.line_slots_written);
    CHECK(xs.pages_read_coarse == ys.pages_read_coarse);
    CHECK(xs.pages_written_coarse == ys.pages_written_coarse);
    CHECK(std::equal(std::begin(xs.regs_written), std::end(xs.regs_written),
                     std::begin(ys.regs_written)));
  }
}
