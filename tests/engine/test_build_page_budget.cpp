// The index builder's page budget (engine/keyframe_page_lists.h,
// engine/page_spill_file.h): with cold pages evicted to a spill file and
// read back on their next touch, the index is byte for byte the one built
// without a budget, on one thread and on two; the spill file never stays
// behind, and a spill that fails fails the build with the file's name and
// leaves no index.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>

#include "engine/index_builder.h"
#include "engine/index_layout.h"
#include "engine/page_spill_file.h"
#include "state/host_cpus.h"
#include "state/page_pool.h"
#include "tests/support/one_cpu_affinity.h"

// A namespace of its own: CI's unity build compiles it with its suite's other files.
namespace test_build_page_budget {

using namespace ttd;
namespace fs = std::filesystem;

namespace {

// A program that writes a few bytes into pages all over 8 MiB of two
// processes, going back to old pages now and then: most pages go cold and
// are evicted, later touched again by writes (read back as delta bases),
// by reads of their bytes, by zero fills and unknown ranges that replace
// or drop them whole while they are evicted, and by unmapping.
class WideReader : public fmt::TraceReader {
 public:
  explicit WideReader(uint64_t steps) : steps_(steps) {}
  Status read(fmt::TraceSink& sink, const fmt::Progress&) override {
    fmt::TraceInfo info;
    info.format = "wide";
    info.arch = ArchId::X86_64;
    sink.begin(info);
    sink.thread_begin(1, 1);
    sink.thread_begin(2, 2);
    sink.mem_map(1, 0x1000000, 0x800000, 3, "heap");
    uint64_t x = 88172645463325252ull;
    uint8_t v[8];
    for (uint64_t i = 0; i < steps_; ++i) {
      const uint64_t tid = (i / 300) % 4 == 3 ? 2 : 1;
      sink.step(fmt::StepInfo{tid, tid, 0x401000 + (i % 7) * 4, 4, fmt::StepKind::Instruction});
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      std::memcpy(v, &x, 8);
      sink.reg(tid, uint16_t(i % 3), {v, 8});
      // Mostly a window that moves on; a fifth of the writes anywhere.
      const uint64_t span = (x & 0xf) < 3 ? 0x800000 : 0x40000;
      const uint64_t base = span == 0x800000 ? 0 : ((i / 2000) * 0x40000) % 0x7c0000;
      const uint64_t addr = 0x1000000 + base + (x >> 24) % (span - 8);
      sink.mem_write(tid, addr, {v, 1 + (x & 7)});
      if (i % 5 == 0) sink.mem_read(tid, 0x1000000 + (x >> 30) % 0x7ffff8, 8, {v, 8});
      if (i % 97 == 0) sink.mem_read(tid, 0x1000000 + (x >> 33) % 0x7ffff8, 8, {});
      if (i % 1001 == 0) sink.mem_map(tid, 0x1000000 + ((x >> 20) % 0x7ff) * 0x1000, 0x1000, 3, "zero");
      if (i % 1301 == 0) sink.mem_unknown(tid, 0x1000000 + ((x >> 21) % 0x7ff) * 0x1000, 0x1000);
      if (i % 1703 == 0) sink.mem_unmap(tid, 0x1000000 + ((x >> 22) % 0x7ff) * 0x1000, 0x2000);
    }
    sink.end();
    return {};
  }

 private:
  uint64_t steps_;
};

std::string slurp(const std::string& p) {
  std::ifstream f(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), {}};
}

// Sets an environment variable for a scope.
struct EnvVar {
  std::string name;
  explicit EnvVar(const char* n, const std::string& value) : name(n) { ::setenv(n, value.c_str(), 1); }
  ~EnvVar() { ::unsetenv(name.c_str()); }
};

struct TempDir {
  fs::path path;
  explicit TempDir(const char* name)
      : path(fs::temp_directory_path() / ("ttd-page-budget-" + std::to_string(::getpid()) + "-" + name)) {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  size_t entries() const { return size_t(std::distance(fs::directory_iterator(path), fs::directory_iterator())); }
};

struct Built {
  std::string data;  // bytes [header, dir_offset): everything but the header and the directory
  IndexBuilder::PageBudgetStats stats;
  bool replay_thread = false;
};

// Builds with TTD_BUILD_PAGE_BUDGET_MB = budget_mb and the spill file in `spill_dir`.
Built build(uint64_t steps, uint32_t k, const std::string& budget_mb, const TempDir& dir) {
  EnvVar budget("TTD_BUILD_PAGE_BUDGET_MB", budget_mb);
  EnvVar spill("TTD_BUILD_SPILL_DIR", dir.path.string());
  const std::string path = (dir.path / "wide.idx").string();
  Built out;
  {
    WideReader reader(steps);
    IndexBuilder b(path, SourceStamp{1, 2, 3, 4}, 5, k);
    REQUIRE(reader.read(b, {}).ok());
    b.end();
    auto f = b.finish(std::chrono::steady_clock::now());
    REQUIRE(f.ok());
    out.stats = b.page_budget_stats();
    out.replay_thread = b.used_replay_thread();
  }
  CHECK(dir.entries() == 1);  // the index only: the spill file is gone
  std::string all = slurp(path);
  fs::remove(path);
  REQUIRE(all.size() >= kIndexHeaderSize);
  IndexHeader h;
  std::memcpy(&h, all.data(), sizeof h);
  REQUIRE(h.dir_offset <= all.size());
  out.data = all.substr(kIndexHeaderSize, h.dir_offset - kIndexHeaderSize);
  return out;
}

void check_budget_changes_nothing(bool one_cpu) {
  TempDir dir(one_cpu ? "one" : "two");
  std::optional<test::OneCpuAffinity> pin;
  if (one_cpu) {
    pin.emplace();
    REQUIRE(pin->pinned());
  }
  const uint64_t steps = 60000;
  Built whole = build(steps, 200, "0", dir);
  CHECK(whole.stats.evicted == 0);
  // A few pages: every keyframe evicts all it can.
  Built tiny = build(steps, 200, "0.02", dir);
  CHECK(tiny.replay_thread == whole.replay_thread);
  MESSAGE("evicted " << tiny.stats.evicted << ", read back " << tiny.stats.read_back << ", spill file "
                     << tiny.stats.spill_pages << " pages");
  CHECK(tiny.stats.evicted > 1000);
  CHECK(tiny.stats.read_back > 100);
  REQUIRE(tiny.data.size() == whole.data.size());
  CHECK(tiny.data == whole.data);
  // A budget near the pages the program holds: few evictions, same index.
  Built some = build(steps, 200, "6", dir);
  CHECK(some.data == whole.data);
}

}  // namespace

TEST_CASE("build page budget: a budget of a few pages indexes byte for byte alike on one thread") {
  check_budget_changes_nothing(true);
}

TEST_CASE("build page budget: a budget of a few pages indexes byte for byte alike on two threads") {
  if (usable_cpus() < 2) {
    MESSAGE("one usable CPU: the two-thread build cannot run here");
    return;
  }
  check_budget_changes_nothing(false);
}

TEST_CASE("build page budget: a spill file that cannot be created fails the build, naming it, and leaves no index") {
  TempDir dir("fail");
  const fs::path missing = dir.path / "no-such-dir";
  EnvVar budget("TTD_BUILD_PAGE_BUDGET_MB", "0.02");
  EnvVar spill("TTD_BUILD_SPILL_DIR", missing.string());
  const std::string path = (dir.path / "wide.idx").string();
  {
    WideReader reader(20000);
    IndexBuilder b(path, SourceStamp{1, 2, 3, 4}, 5, 200);
    REQUIRE(reader.read(b, {}).ok());
    b.end();
    auto f = b.finish(std::chrono::steady_clock::now());
    REQUIRE_FALSE(f.ok());
    const std::string msg = f.error().to_string();
    CAPTURE(msg);
    CHECK(msg.find((missing / "ttd-build-spill").string()) != std::string::npos);
    CHECK(msg.find("No such file or directory") != std::string::npos);
  }
  CHECK_FALSE(fs::exists(path));
  CHECK(dir.entries() == 0);  // no temporary index either
}

TEST_CASE("build page budget: the spill file gives pages back, reuses freed slots and reports a full disk") {
  TempDir dir("spill");
  {
    PageSpillFile spill(dir.path.string());
    CHECK(dir.entries() == 0);  // created on the first spill
    auto a = make_page(), b = make_page();
    std::memset(a->data, 0x5a, kPageSize);
    std::memset(a->valid, 0xff, sizeof a->valid);
    b->data[7] = 9;
    b->valid[0] = 1u << 7;
    auto sa = spill.write(*a), sb = spill.write(*b);
    REQUIRE(sa.ok());
    REQUIRE(sb.ok());
    CHECK(dir.entries() == 0);  // unlinked at once
    auto back = spill.take(*sa);
    REQUIRE(back.ok());
    CHECK(std::memcmp(back->get(), a.get(), sizeof(Page)) == 0);
    auto sc = spill.write(*b);  // into a's freed slot
    REQUIRE(sc.ok());
    CHECK(*sc == *sa);
    CHECK(spill.slots() == 2);
    auto back_b = spill.take(*sb);
    REQUIRE(back_b.ok());
    CHECK(std::memcmp(back_b->get(), b.get(), sizeof(Page)) == 0);
  }
  int fd = ::open("/dev/full", O_RDWR | O_CLOEXEC);
  if (fd < 0) {
    MESSAGE("no /dev/full here");
    return;
  }
  PageSpillFile full(fd, "/dev/full");
  auto r = full.write(*make_page());
  REQUIRE_FALSE(r.ok());
  const std::string msg = r.error().to_string();
  CAPTURE(msg);
  CHECK(msg.find("/dev/full") != std::string::npos);
  CHECK(msg.find("No space left on device") != std::string::npos);
}

}  // namespace test_build_page_budget
