// Fuzz-style robustness: truncations and bit flips of valid files must end
// in success or an Error, never a crash (run this suite under
// -DTTD_SANITIZE=ON to catch memory errors too). Each input is also read
// through a step-batch sink and must give the per-call path's calls.
#include <doctest/doctest.h>

#include <random>
#include <vector>

#include "formats/ucir/ucir_reader.h"
#include "sample_traces.h"
#include "ucir_test_support.h"

// A namespace of its own: CI's unity build compiles it with its suite's other files.
namespace test_ucir_fuzz {

using namespace ttd;
using ttd::test::RecordingSink;

namespace {

// A sink that only counts, so thousands of reads stay cheap.
class CountingSink : public fmt::TraceSink {
 public:
  uint64_t calls = 0;
  void begin(const fmt::TraceInfo&) override { ++calls; }
  void step(const fmt::StepInfo&) override { ++calls; }
  void reg(uint64_t, uint16_t, std::span<const uint8_t>) override { ++calls; }
  void mem_write(uint64_t, uint64_t, std::span<const uint8_t>) override { ++calls; }
};

void check_survives(const std::vector<uint8_t>& bytes, int& errors, int& successes) {
  const std::string path = test::write_bytes("fuzz.ucir", bytes);
  CountingSink sink;
  auto r = fmt::UcirReader::open(path);
  Status s = r ? (*r)->read(sink, {}) : Status(r.error());
  if (r) {
    // The step-batch path (the index builder's) makes the same calls and
    // ends the same way as the per-call path, whatever the input.
    RecordingSink plain;
    test::BatchRecordingSink batched;
    const Status a = (*r)->read(plain, {}), b = (*r)->read(batched, {});
    CHECK(a.ok() == b.ok());
    CHECK(test::join(plain.log) == test::join(batched.log));
  }
  if (s.ok()) {
    ++successes;
  } else {
    ++errors;
    CHECK(s.error().where == path);
    CHECK(s.error().offset.has_value());
    CHECK(!s.error().message.empty());
  }
  std::remove(path.c_str());
}

}  // namespace

TEST_CASE("fuzz: truncations and bit flips of valid traces end in success or an Error") {
  std::vector<std::vector<uint8_t>> seeds = {
      test::read_bytes(test::write_sample_x86_64(test::temp_path("f1.ucir"))),
      test::read_bytes(test::write_usercorn_style_x86_64(test::temp_path("f2.ucir"))),
      test::read_bytes(test::write_sample_i386_le_version(test::temp_path("f3.ucir"))),
  };
  std::mt19937 rng(12345);
  int errors = 0, successes = 0;
  for (const auto& seed : seeds) {
    REQUIRE(!seed.empty());
    for (size_t cut = 0; cut <= seed.size(); ++cut) {
      std::vector<uint8_t> t(seed.begin(), seed.begin() + long(cut));
      check_survives(t, errors, successes);
    }
    for (int i = 0; i < 600; ++i) {
      std::vector<uint8_t> t = seed;
      const int flips = 1 + int(rng() % 4);
      for (int f = 0; f < flips; ++f) t[rng() % t.size()] ^= uint8_t(1u << (rng() % 8));
      check_survives(t, errors, successes);
    }
  }
  MESSAGE(errors << " errors, " << successes << " successes");
  CHECK(errors > 0);
  CHECK(successes > 0);
}

TEST_CASE("fuzz: random op bytes inside valid framing end in success or an Error") {
  std::mt19937 rng(99);
  int errors = 0, successes = 0;
  for (int i = 0; i < 1500; ++i) {
    std::vector<uint8_t> ops(rng() % 300);
    for (auto& b : ops) b = uint8_t(rng() % 3 == 0 ? rng() % 14 : rng());
    const std::string path = test::write_raw_ucir(ops);
    check_survives(test::read_bytes(path), errors, successes);
    std::remove(path.c_str());
  }
  MESSAGE(errors << " errors, " << successes << " successes");
  CHECK(errors > 0);
}

}  // namespace test_ucir_fuzz
