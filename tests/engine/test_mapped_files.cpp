// The table of mapped files in the index metadata (engine/mapped_files.h,
// issue 17: a one-shot query no longer samples 64 keyframes to find the
// symbolizer's modules). The builder's table must equal what sampling the
// keyframes gives, and an index without the table (built before it
// existed) or with a malformed one must still find the same modules by
// sampling: never an error, never a crash.
#include <doctest/doctest.h>
#include <unistd.h>
#include <xxhash.h>

#include <climits>
#include <cstring>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/index_file.h"
#include "engine/index_meta_json.h"
#include "engine/mapped_files.h"
#include "engine/symbolizer.h"
#include "engine/trace.h"

using namespace ttd;

namespace {

constexpr uint32_t kSteps = 200 * 16;  // 200 chunks of 16 steps: 64 of them sampled
const std::string kMissing = "/nonexistent/ttd-test/libmissing.so.1";
const std::string kUnsampled = "/nonexistent/ttd-test/libonly-in-chunk-1.so";

std::string self_path() {
  char b[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", b, sizeof b - 1);
  REQUIRE(n > 0);
  return std::string(b, size_t(n));
}

// One process mapping files: this test program twice (the lower start
// wins), a file that does not exist, an anonymous and a bracketed name
// (not files), and a library mapped only while chunk 1 runs (its keyframe
// alone sees it, and chunk 1 is not among the sampled ones).
class MappingReader : public fmt::TraceReader {
 public:
  explicit MappingReader(std::string exe) : exe_(std::move(exe)) {}
  Status read(fmt::TraceSink& sink, const fmt::Progress&) override {
    fmt::TraceInfo info;
    info.format = "synthetic";
    info.arch = ArchId::X86_64;
    info.caps.registers = info.caps.memory_values = info.caps.memory_accesses = true;
    sink.begin(info);
    sink.mem_map(1, 0x7f0000500000, 0x1000, 5, exe_);
    sink.mem_map(1, 0x7f0000400000, 0x1000, 5, exe_);
    sink.mem_map(1, 0x7f0000600000, 0x2000, 5, kMissing);
    sink.mem_map(1, 0x7f0000700000, 0x1000, 3, "");
    sink.mem_map(1, 0x7f0000800000, 0x1000, 3, "[heap]");
    const uint8_t v[8] = {1};
    for (uint32_t i = 0; i < kSteps; ++i) {
      sink.step(fmt::StepInfo{100, 1, 0x401000 + (i % 7) * 4, 4, fmt::StepKind::Instruction});
      sink.reg(100, 0, v);
      if (i == 15) sink.mem_map(1, 0x7f0000900000, 0x1000, 5, kUnsampled);
      if (i == 20) sink.mem_unmap(1, 0x7f0000900000, 0x1000);
    }
    sink.end();
    return {};
  }

 private:
  std::string exe_;
};

struct MappingTrace {
  std::string path = "/tmp/ttd-mapped-files-" + std::to_string(::getpid()) + "-" + std::to_string(count++);
  std::string index = path + ".ttdidx";
  std::string exe = self_path();
  static inline int count = 0;
  MappingTrace() { std::ofstream(path) << "mapped files " << path; }
  ~MappingTrace() {
    std::remove(path.c_str());
    std::remove(index.c_str());
  }
  Result<std::shared_ptr<Trace>> open() const {
    OpenOptions o;
    o.keyframe_interval = 16;
    std::string exe_path = exe;
    o.reader_factory = [exe_path]() -> Result<std::unique_ptr<fmt::TraceReader>> {
      return std::unique_ptr<fmt::TraceReader>(new MappingReader(exe_path));
    };
    return Trace::open(path, o);
  }
};

// Replaces `from` by `to` (same length) in the index's metadata JSON and
// makes the directory and header checksums agree again, as an index
// written that way would carry them.
void patch_metadata(const std::string& index, const std::string& from, const std::string& to) {
  REQUIRE(from.size() == to.size());
  std::ifstream in(index, std::ios::binary);
  std::string f((std::istreambuf_iterator<char>(in)), {});
  in.close();
  REQUIRE(f.size() >= sizeof(IndexHeader));
  IndexHeader h;
  std::memcpy(&h, f.data(), sizeof h);
  REQUIRE(h.dir_offset + h.dir_size <= f.size());
  const size_t at = f.find(from, h.dir_offset);
  REQUIRE(at != std::string::npos);
  REQUIRE(at + from.size() <= h.dir_offset + h.dir_size);
  f.replace(at, from.size(), to);
  h.dir_checksum = XXH3_64bits(f.data() + h.dir_offset, h.dir_size);
  h.header_checksum = XXH3_64bits(&h, offsetof(IndexHeader, header_checksum));
  std::memcpy(f.data(), &h, sizeof h);
  std::ofstream(index, std::ios::binary | std::ios::trunc) << f;
}

std::vector<std::string> modules_of(const Trace& t) { return t.symbolizer().modules(); }

}  // namespace

TEST_CASE("the index's mapped-file table is what sampling its keyframes finds") {
  MappingTrace mt;
  auto t = mt.open();
  REQUIRE(t.ok());
  const IndexFile& idx = (*t)->index();
  REQUIRE(idx.chunk_count() == 200);
  REQUIRE(idx.meta().mapped_files.has_value());
  const MappedFiles& table = *idx.meta().mapped_files;
  CHECK(table == sample_mapped_files(idx, ArchId::X86_64));
  CHECK(table.size() == 2);
  CHECK(table.at(mt.exe) == 0x7f0000400000);
  CHECK(table.at(kMissing) == 0x7f0000600000);
  // Chunk 1's keyframe holds it, but chunk 1 is not sampled, by either side.
  CHECK(table.count(kUnsampled) == 0);
  // This program is an x86-64 ELF file that exists: a module at its start.
  const auto modules = modules_of(**t);
  REQUIRE(modules.size() == 1);
  CHECK(modules[0].rfind(mt.exe + " @ ", 0) == 0);
}

TEST_CASE("an index without the table samples its keyframes and finds the same modules") {
  MappingTrace mt;
  std::vector<std::string> with_table;
  {
    auto t = mt.open();
    REQUIRE(t.ok());
    REQUIRE((*t)->index().meta().mapped_files.has_value());
    with_table = modules_of(**t);
    REQUIRE(with_table.size() == 1);
  }
  // An unknown key, as an older builder's index has none of this one.
  patch_metadata(mt.index, "\"mapped_files\"", "\"mapped_filez\"");
  auto t = mt.open();
  REQUIRE(t.ok());
  CHECK_FALSE((*t)->index().meta().mapped_files.has_value());  // the patched index, not a rebuild
  CHECK(modules_of(**t) == with_table);
}

TEST_CASE("a malformed mapped-file table is ignored: the index opens and the modules are sampled") {
  MappingTrace mt;
  std::vector<std::string> with_table;
  {
    auto t = mt.open();
    REQUIRE(t.ok());
    with_table = modules_of(**t);
  }
  // The first path no longer absolute ("/nonexistent" sorts first).
  patch_metadata(mt.index, "[\"/nonexistent", "[\"xnonexistent");
  auto t = mt.open();
  REQUIRE(t.ok());
  CHECK_FALSE((*t)->index().meta().mapped_files.has_value());
  CHECK(modules_of(**t) == with_table);
}

TEST_CASE("mapped_files_from_json: only [[absolute path, unsigned], ...] is a table") {
  using nlohmann::json;
  auto parse = [](const char* text) { return mapped_files_from_json(json::parse(text)); };
  CHECK_FALSE(parse(R"({})").has_value());
  auto empty = parse(R"({"mapped_files": []})");
  REQUIRE(empty.has_value());
  CHECK(empty->empty());
  auto one = parse(R"({"mapped_files": [["/lib/a.so", 18446744073709551615]]})");
  REQUIRE(one.has_value());
  CHECK(one->at("/lib/a.so") == UINT64_MAX);
  for (const char* bad : {R"({"mapped_files": {}})", R"({"mapped_files": "x"})", R"({"mapped_files": [1]})",
                          R"({"mapped_files": [["/a"]]})", R"({"mapped_files": [["/a", 1, 2]]})",
                          R"({"mapped_files": [["/a", -1]]})", R"({"mapped_files": [["/a", 1.5]]})",
                          R"({"mapped_files": [["/a", "1"]]})", R"({"mapped_files": [[1, 1]]})",
                          R"({"mapped_files": [["", 1]]})", R"({"mapped_files": [["a.so", 1]]})",
                          R"({"mapped_files": [["/a", 1], ["/a", 2]]})", R"({"mapped_files": [null]})"})
    CHECK_MESSAGE(!mapped_files_from_json(json::parse(bad)).has_value(), bad);
}

TEST_CASE("the metadata JSON keeps the mapped-file table, and its absence") {
  IndexMeta m;
  m.info.format = "synthetic";
  m.mapped_files = MappedFiles{{"/usr/lib/x.so", 0x7f0000000000}, {"/bin/p", 0x400000}};
  IndexMeta back;
  REQUIRE(meta_from_json(meta_to_json(m), back));
  CHECK(back.mapped_files == m.mapped_files);
  m.mapped_files.reset();
  IndexMeta none;
  REQUIRE(meta_from_json(meta_to_json(m), none));
  CHECK_FALSE(none.mapped_files.has_value());
}

TEST_CASE("mapped_file_sample_chunks: every chunk of a short trace, 64 evenly spaced of a long one") {
  CHECK(mapped_file_sample_chunks(0).empty());
  CHECK(mapped_file_sample_chunks(1) == std::vector<size_t>{0});
  CHECK(mapped_file_sample_chunks(3) == std::vector<size_t>{0, 1, 2});
  auto long_trace = mapped_file_sample_chunks(200);
  REQUIRE(long_trace.size() == kMappedFileSamples);
  CHECK(long_trace.front() == 0);
  CHECK(long_trace[1] == 3);
  CHECK(long_trace.back() == 199);
}
