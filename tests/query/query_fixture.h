// Traces for the query tests: the engine's synthetic step stream (with
// its effects at hand for brute-force answers) indexed into a temporary
// file, and UCIR files written to a temporary folder.
#pragma once
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "engine/trace.h"
#include "synthetic_trace.h"

namespace ttd::test {

inline std::string temp_path(const std::string& stem) {
  static int n = 0;
  return (std::filesystem::temp_directory_path() /
          ("ttd-query-test-" + std::to_string(::getpid()) + "-" + std::to_string(n++) + "-" + stem))
      .string();
}

struct SynthFixture {
  std::string path;
  std::shared_ptr<SynthTrace> synth;
  std::shared_ptr<const Trace> trace;

  SynthFixture(uint64_t steps, uint32_t threads, uint64_t seed, uint32_t chunk_steps = 64) {
    path = temp_path("synth");
    std::ofstream(path) << "synthetic " << steps << " " << threads << " " << seed;
    synth = std::make_shared<SynthTrace>(make_synthetic(steps, threads, seed));
    OpenOptions o;
    o.keyframe_interval = chunk_steps;
    auto s = synth;
    o.reader_factory = [s]() -> Result<std::unique_ptr<fmt::TraceReader>> {
      return std::unique_ptr<fmt::TraceReader>(new SynthReader(s));
    };
    auto t = Trace::open(path, o);
    if (t) trace = *t;
  }
  ~SynthFixture() {
    trace.reset();
    std::remove(path.c_str());
    std::remove((path + ".ttdidx").c_str());
  }
};

// A trace file on disk, removed with its index at the end.
struct FileFixture {
  std::string path;
  explicit FileFixture(const std::string& stem) : path(temp_path(stem)) {}
  ~FileFixture() {
    std::remove(path.c_str());
    std::remove((path + ".ttdidx").c_str());
  }
  Result<std::shared_ptr<Trace>> open(uint32_t chunk_steps = 64) const {
    OpenOptions o;
    o.keyframe_interval = chunk_steps;
    return Trace::open(path, o);
  }
};

}  // namespace ttd::test
