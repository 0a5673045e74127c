// The parallel parse (engine/parallel_index_build.h): a UCIR trace cut
// into segments, parsed and encoded by worker threads and taken back in
// order, indexes byte for byte as the build in order does (the data
// region: blobs, streams, keyframes, summaries), with and without the
// replay thread, for chunk lengths that put syscalls, exits, frames and a
// later keyframe on and around the cuts. A trace the segments do not cover
// (a second thread) is refused, and Trace::open then builds it in order.
#include <doctest/doctest.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "engine/index_builder.h"
#include "engine/index_layout.h"
#include "engine/parallel_index_build.h"
#include "engine/trace.h"
#include "formats/ucir/ucir_reader.h"
#include "formats/ucir/ucir_writer.h"
#include "state/host_cpus.h"
#include "tests/engine/index_data_region.h"
#include "tests/support/busy_ucir_trace.h"
#include "tests/support/one_cpu_affinity.h"

using namespace ttd;

namespace {

std::string temp(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("ttd-parparse-" + std::to_string(::getpid()) + "-" + name))
      .string();
}

// The shared busy trace (tests/support/busy_ucir_trace.h); with
// `second_thread` the last steps are another thread's.
std::string write_trace(const std::string& path, uint32_t steps, bool second_thread = false) {
  test::BusyUcirTrace t;
  t.steps = steps;
  t.second_thread = second_thread;
  test::write_busy_ucir_trace(path, t);
  return path;
}

std::string build_in_order(const std::string& trace, uint32_t k) {
  const std::string path = temp("in-order.idx");
  {
    auto reader = fmt::UcirReader::open(trace).value();
    IndexBuilder b(path, SourceStamp{1, 2, 3, 4}, 5, k);
    REQUIRE(reader->read(b, {}).ok());
    b.end();
    REQUIRE(b.finish(std::chrono::steady_clock::now()).ok());
  }
  return test::index_data_region(path);
}

std::string build_in_segments(const std::string& trace, uint32_t k, unsigned workers) {
  const std::string path = temp("segments.idx");
  {
    auto reader = fmt::UcirReader::open(trace).value();
    auto segmented = reader->segments(uint64_t(k) * kSegmentChunks);
    REQUIRE(segmented);
    IndexBuilder b(path, SourceStamp{1, 2, 3, 4}, 5, k);
    Status s = build_from_segments(*segmented, b, workers, {});
    REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().to_string()));
    b.end();
    REQUIRE(b.finish(std::chrono::steady_clock::now()).ok());
  }
  return test::index_data_region(path);
}

}  // namespace

TEST_CASE("parallel parse: a UCIR trace indexes as in order, for chunk lengths and worker counts") {
  const std::string trace = write_trace(temp("busy.ucir"), 6000);
  for (uint32_t k : {16u, 17u, 64u, 700u, 3072u}) {
    CAPTURE(k);
    const std::string in_order = build_in_order(trace, k);
    for (unsigned workers : {1u, 2u, 3u}) {
      CAPTURE(workers);
      const std::string parallel = build_in_segments(trace, k, workers);
      REQUIRE(parallel.size() == in_order.size());
      CHECK(parallel == in_order);
    }
  }
  std::remove(trace.c_str());
}

TEST_CASE("parallel parse: on one CPU (no replay thread) the chunks are taken alike") {
  const std::string trace = write_trace(temp("busy1.ucir"), 3000);
  const std::string in_order = build_in_order(trace, 16);
  test::OneCpuAffinity pin;
  REQUIRE(pin.pinned());
  CHECK(build_in_segments(trace, 16, 2) == in_order);
  std::remove(trace.c_str());
}

TEST_CASE("parallel parse: traces of no step, one step and a chunk's steps plus one") {
  for (uint32_t n : {0u, 1u, 2u, 3u, 16u * kSegmentChunks + 1, 16u * kSegmentChunks + 2}) {
    CAPTURE(n);
    const std::string trace = write_trace(temp("short.ucir"), n);
    CHECK(build_in_segments(trace, 16, 2) == build_in_order(trace, 16));
    std::remove(trace.c_str());
  }
}

TEST_CASE("parallel parse: a second thread stops it, and Trace::open builds in order instead") {
  const std::string trace = write_trace(temp("threads.ucir"), 3000, true);
  {
    auto reader = fmt::UcirReader::open(trace).value();
    auto segmented = reader->segments(16 * kSegmentChunks);
    REQUIRE(segmented);
    IndexBuilder b(temp("refused.idx"), SourceStamp{1, 2, 3, 4}, 5, 16);
    CHECK_FALSE(build_from_segments(*segmented, b, 2, {}).ok());
  }
  const std::string in_order = build_in_order(trace, 16);
  ::setenv("TTD_BUILD_PARSE_THREADS", "2", 1);
  OpenOptions o;
  o.index_path = temp("open.idx");
  o.keyframe_interval = 16;
  o.rebuild = true;
  auto t = Trace::open(trace, o);
  ::unsetenv("TTD_BUILD_PARSE_THREADS");
  REQUIRE(t.ok());
  t->reset();
  // Trace::open stamps the real file: compare the data region only.
  CHECK(test::index_data_region(o.index_path) == in_order);
  std::remove(trace.c_str());
}
