#include <doctest/doctest.h>

#include <time.h>
#include <cstdio>
#include <random>
#include <string_view>
#include <vector>

#include "formats/ucir/crc32c.h"

using namespace ttd::fmt;

namespace {
std::span<const uint8_t> bytes(std::string_view s) { return {reinterpret_cast<const uint8_t*>(s.data()), s.size()}; }
}  // namespace

TEST_CASE("crc32c: known vectors (RFC 3720 and the check value)") {
  std::vector<uint8_t> zeros(32, 0), ones(32, 0xff), inc(32), dec(32);
  for (int i = 0; i < 32; ++i) inc[i] = uint8_t(i), dec[i] = uint8_t(31 - i);
  for (auto fn : {&crc32c, &crc32c_portable}) {
    CHECK(fn(bytes("123456789"), 0) == 0xe3069283u);
    CHECK(fn({}, 0) == 0u);
    CHECK(fn(zeros, 0) == 0x8a9136aau);
    CHECK(fn(ones, 0) == 0x62a8ab43u);
    CHECK(fn(inc, 0) == 0x46dd794eu);
    CHECK(fn(dec, 0) == 0x113fdb5cu);
  }
}

TEST_CASE("crc32c: masking as the snappy framing format defines it") {
  // mask(crc) = ((crc >> 15) | (crc << 17)) + 0xa282ead8
  CHECK(crc32c_mask(0) == 0xa282ead8u);
  CHECK(crc32c_mask(0xe3069283u) == uint32_t(((0xe3069283u >> 15) | (0xe3069283u << 17)) + 0xa282ead8u));
}

TEST_CASE("crc32c: hardware and table paths agree at every length and alignment, updates chain") {
  std::mt19937 rng(7);
  std::vector<uint8_t> data(70000 + 16);
  for (auto& b : data) b = uint8_t(rng());
  for (size_t start = 0; start < 9; ++start) {
    // Lengths around the hardware path's three-lane groups (3 x 256 and
    // 3 x 8192 bytes) and a whole snappy chunk.
    for (size_t len : {0, 1, 3, 7, 8, 9, 15, 16, 63, 64, 65, 767, 768, 769, 1000, 1543, 4096, 24575, 24576, 24577,
                       49160, 65536, 70000}) {
      std::span<const uint8_t> s(data.data() + start, len);
      const uint32_t a = crc32c(s), b = crc32c_portable(s);
      CHECK(a == b);
      const size_t half = len / 3;
      CHECK(crc32c(s.subspan(half), crc32c(s.first(half))) == a);
      CHECK(crc32c_portable(s.subspan(half), crc32c_portable(s.first(half))) == a);
    }
  }
}

// The path crc32c() takes must be above 1 GB/s; the table fallback is
// reported (about 2 GB/s on an idle core, less on a loaded shared one).
TEST_CASE("crc32c: throughput above 1 GB/s") {
  std::vector<uint8_t> buf(8 << 20, 0x5a);
  // Thread CPU time, not wall time: the build machines are shared.
  auto now = [] {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
  };
  auto measure = [&](auto fn) {
    uint32_t sink = 0;
    const double t0 = now();
    for (int i = 0; i < 8; ++i) sink ^= fn(buf, sink);
    const double s = now() - t0;
    CHECK(sink != 0x12345678u);  // keep the loop
    return 8.0 * double(buf.size()) / s / 1e9;
  };
  const double hw = measure(&crc32c), table = measure(&crc32c_portable);
  MESSAGE("crc32c " << hw << " GB/s (hardware path: " << crc32c_hardware() << "), table " << table << " GB/s");
#if defined(__OPTIMIZE__) && !defined(__SANITIZE_ADDRESS__)
  CHECK(hw > 1.0);
#endif
}
