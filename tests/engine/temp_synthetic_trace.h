// A synthetic trace (synthetic_trace.h) behind a temporary file name, opened
// through the real engine: the reader factory plays the synthetic stream, the
// index is built next to the name. Both files are removed on destruction.
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

struct TempSynthTrace {
  std::string path;
  std::shared_ptr<SynthTrace> synth;

  explicit TempSynthTrace(SynthTrace t) : synth(std::make_shared<SynthTrace>(std::move(t))) {
    static int n = 0;
    path = (std::filesystem::temp_directory_path() /
            ("ttd-synthetic-" + std::to_string(::getpid()) + "-" + std::to_string(n++)))
               .string();
    // The content only has to exist and differ between traces (the index
    // stamps the source file).
    std::ofstream(path) << "synthetic " << path << " " << synth->steps.size();
  }
  ~TempSynthTrace() {
    std::remove(path.c_str());
    std::remove((path + ".ttdidx").c_str());
  }
  TempSynthTrace(const TempSynthTrace&) = delete;
  TempSynthTrace& operator=(const TempSynthTrace&) = delete;

  // Open options that read the synthetic stream, K steps per chunk.
  OpenOptions options(uint32_t k) const {
    OpenOptions o;
    o.keyframe_interval = k;
    auto s = synth;
    o.reader_factory = [s]() -> Result<std::unique_ptr<fmt::TraceReader>> {
      return std::unique_ptr<fmt::TraceReader>(new SynthReader(s));
    };
    return o;
  }
};

}  // namespace ttd::test
