// Helpers for the index-safety tests: a scratch folder removed with
// everything in it, file contents, and a tiny reader whose TraceInfo and
// step texts the test chooses (non-UTF-8 bytes, a failure, a signal).
#pragma once
#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <memory>
#include <sstream>
#include <string>

#include "engine/trace.h"

namespace ttd::test {

struct ScratchDir {
  std::string path;
  ScratchDir() {
    std::string t = (std::filesystem::temp_directory_path() / "ttd-index-safety-XXXXXX").string();
    path = ::mkdtemp(t.data()) ? t : std::string();
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  std::string operator/(const std::string& name) const { return path + "/" + name; }
};

inline std::string slurp(const std::string& p) {
  std::ifstream f(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}
inline void spit(const std::string& p, const std::string& bytes) {
  std::ofstream(p, std::ios::binary | std::ios::trunc) << bytes;
}

// 40 one-byte steps at 0x1000.. of thread 1; `info` as given; each step
// has a string attribute `key` = `value`; the trace maps `map_name`.
// `before_end`, if set, runs after step 20 (fail, raise a signal).
struct TextReader : fmt::TraceReader {
  fmt::TraceInfo info;
  std::string key = "k", value = "v", map_name = "m";
  std::function<Status()> midway;
  Status read(fmt::TraceSink& sink, const fmt::Progress&) override {
    sink.begin(info);
    sink.mem_map(1, 0x10000, 0x1000, 3, map_name);
    for (uint64_t i = 0; i < 40; ++i) {
      sink.step(fmt::StepInfo{1, 1, 0x1000 + i, 1, fmt::StepKind::Instruction});
      sink.attr(key, fmt::AttrValue(value));
      if (i == 20 && midway)
        if (auto s = midway(); !s) return s;
    }
    sink.end();
    return {};
  }
};

inline OpenOptions text_reader_options(std::function<void(TextReader&)> setup = {}) {
  OpenOptions o;
  o.keyframe_interval = 16;
  o.reader_factory = [setup]() -> Result<std::unique_ptr<fmt::TraceReader>> {
    auto r = std::make_unique<TextReader>();
    r->info.format = "text";
    r->info.arch = ArchId::X86_64;
    if (setup) setup(*r);
    return std::unique_ptr<fmt::TraceReader>(std::move(r));
  };
  return o;
}

}  // namespace ttd::test
