// The two-thread index build (engine/chunk_replay_thread.h) writes the
// same index as the one-thread build: the live state it reaches by
// replaying each chunk's encoded stream is the state the one-thread build
// reaches by applying the reader's effects, so keyframes, pages, segments,
// streams and summaries come out byte for byte alike and in the same
// order. Only the directory head differs (it records the build time).
#include <doctest/doctest.h>
#include <sched.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "engine/index_builder.h"
#include "engine/index_layout.h"
#include "state/host_cpus.h"
#include "tests/support/one_cpu_affinity.h"
#include "synthetic_trace.h"

using namespace ttd;

namespace {

// Effects the synthetic program lacks: threads that start and end (one
// first seen at a chunk's first step, one only through a register effect),
// unknown registers and memory, pc register writes, mappings that come,
// change protection and go, reads with and without their bytes.
class MixedReader : public fmt::TraceReader {
 public:
  explicit MixedReader(uint64_t steps) : steps_(steps) {}
  Status read(fmt::TraceSink& sink, const fmt::Progress&) override {
    fmt::TraceInfo info;
    info.format = "mixed";
    info.arch = ArchId::X86_64;
    sink.begin(info);
    const ArchDesc& a = arch_desc(ArchId::X86_64);
    sink.thread_begin(1, 1);
    sink.mem_map(1, 0x10000, 0x4000, 3, "heap");
    uint8_t v[8];
    for (uint64_t i = 0; i < steps_; ++i) {
      const uint64_t tid = i % 97 < 60 ? 1 : (i >= 64 ? 2 + (i / 500) % 3 : 1);
      sink.step(fmt::StepInfo{tid, 1, 0x401000 + (i % 13) * 4, 4, fmt::StepKind::Instruction});
      std::memcpy(v, &i, 8);
      sink.reg(tid, uint16_t(i % 5), {v, 8});
      if (i % 7 == 0) sink.mem_write(1, 0x10000 + (i * 24) % 0x4000, {v, 1 + i % 8});
      if (i % 11 == 0) sink.mem_read(1, 0x10000 + (i * 40) % 0x4000, 8, {v, 8});
      if (i % 13 == 0) sink.mem_read(1, 0x10000 + (i * 56) % 0x4000, 4, {});
      if (i % 17 == 0) sink.reg_unknown(tid, 3);
      if (i % 19 == 0) sink.mem_unknown(1, 0x10000 + (i * 8) % 0x4000, 16);
      if (i % 23 == 0) sink.reg(tid, a.pc_index, {v, 8});
      if (i % 29 == 0) sink.reg(100 + i % 3, 2, {v, 8});  // a thread known only by a register
      if (i % 31 == 0) sink.thread_end(2 + i % 3);
      if (i % 37 == 0) sink.thread_begin(2 + i % 3, 1);
      if (i % 41 == 0) sink.mem_map(1, 0x80000 + (i % 5) * 0x1000, 0x1000, 1, "anon");
      if (i % 43 == 0) sink.mem_protect(1, 0x80000 + (i % 5) * 0x1000, 0x1000, 3);
      if (i % 47 == 0) sink.mem_unmap(1, 0x80000 + (i % 5) * 0x1000, 0x1000);
      if (i % 53 == 0) sink.step(fmt::StepInfo{tid, 1, 0x402000, 0, fmt::StepKind::Syscall});
    }
    sink.end();
    return {};
  }

 private:
  uint64_t steps_;
};

// A loop writing a few bytes into pages all over a 2 MiB buffer, the same
// pages again and again (the corpus's scatter trace in small): page
// versions stored as deltas, chains that reach kMaxPageDeltaChain and go
// back to their anchor, segments encoded again at every keyframe.
class ScatterReader : public fmt::TraceReader {
 public:
  explicit ScatterReader(uint64_t steps) : steps_(steps) {}
  Status read(fmt::TraceSink& sink, const fmt::Progress&) override {
    fmt::TraceInfo info;
    info.format = "scatter";
    info.arch = ArchId::X86_64;
    sink.begin(info);
    sink.thread_begin(1, 1);
    sink.mem_map(1, 0x200000, 0x200000, 3, "buffer");
    uint64_t x = 88172645463325252ull;
    uint8_t v[8];
    for (uint64_t i = 0; i < steps_; ++i) {
      sink.step(fmt::StepInfo{1, 1, 0x401000 + (i % 5) * 4, 4, fmt::StepKind::Instruction});
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      std::memcpy(v, &x, 8);
      sink.reg(1, uint16_t(i % 3), {v, 8});
      if (i % 3 == 0) sink.mem_write(1, 0x200000 + (x >> 20) % (0x200000 - 8), {v, 1 + (x & 7)});
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

struct Built {
  std::string bytes;  // header and directory head left out
  bool replay_thread = false;
};

Built build(fmt::TraceReader& reader, uint32_t k, const std::string& path) {
  Built out;
  {
    IndexBuilder b(path, SourceStamp{1, 2, 3, 4}, 5, k);
    REQUIRE(reader.read(b, {}).ok());
    b.end();
    out.replay_thread = b.used_replay_thread();
    auto f = b.finish(std::chrono::steady_clock::now());
    REQUIRE(f.ok());
  }
  std::string all = slurp(path);
  std::remove(path.c_str());
  REQUIRE(all.size() >= kIndexHeaderSize);
  IndexHeader h;
  std::memcpy(&h, all.data(), sizeof h);
  REQUIRE(h.dir_offset <= all.size());
  out.bytes = all.substr(kIndexHeaderSize, h.dir_offset - kIndexHeaderSize);
  return out;
}

std::string temp_index(const char* name) {
  return (std::filesystem::temp_directory_path() / ("ttd-build-threads-" + std::to_string(::getpid()) + "-" + name))
      .string();
}

void check_same_index(fmt::TraceReader& reader, uint32_t k) {
  if (usable_cpus() < 2) {
    MESSAGE("one usable CPU: the two-thread build cannot run here");
    return;
  }
  Built two = build(reader, k, temp_index("two"));
  CHECK(two.replay_thread);
  Built one;
  {
    test::OneCpuAffinity pin;
    REQUIRE(pin.pinned());
    one = build(reader, k, temp_index("one"));
  }
  CHECK_FALSE(one.replay_thread);
  REQUIRE(one.bytes.size() == two.bytes.size());
  CHECK(one.bytes == two.bytes);
}

}  // namespace

TEST_CASE("index build threads: the synthetic program indexes alike on one thread and on two") {
  for (uint32_t threads : {1u, 3u}) {
    CAPTURE(threads);
    test::SynthReader r(std::make_shared<test::SynthTrace>(test::make_synthetic(20000, threads, 5)));
    check_same_index(r, 64);  // 313 chunks: summary groups of 32 close inside jobs
  }
}

TEST_CASE("index build threads: thread, mapping and unknown-value effects index alike on one thread and on two") {
  for (uint32_t k : {1u, 7u, 64u, 3072u}) {
    CAPTURE(k);
    MixedReader r(6000);
    check_same_index(r, k);
  }
}

TEST_CASE("index build threads: scattered page writes (page deltas, anchors, segments) index alike on one thread and on two") {
  for (uint32_t k : {50u, 400u}) {
    CAPTURE(k);
    ScatterReader r(120000);
    check_same_index(r, k);  // 300 and 2400 chunks: ~1000 pages, each written again every few chunks
  }
}

TEST_CASE("index build threads: an empty trace and a one-step trace index alike") {
  for (uint64_t n : {0u, 1u}) {
    CAPTURE(n);
    MixedReader r(n);
    check_same_index(r, 16);
  }
}
