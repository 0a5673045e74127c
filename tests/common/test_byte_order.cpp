// state/byte_order.h: the one set of fixed-width loads and stores.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <iterator>

#include "state/byte_order.h"
#include "state/target_value.h"

using namespace ttd;

TEST_CASE("little-endian loads read least significant byte first, at any alignment") {
  const uint8_t b[] = {0xff, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x88};
  CHECK(load_le16(b + 1) == 0x0201);
  CHECK(load_le32(b + 1) == 0x04030201u);
  CHECK(load_le64(b + 1) == 0x8807060504030201ull);
  CHECK(load_le_i16(b) == int16_t(0x01ff));
  CHECK(load_le_i32(b + 5) == int32_t(0x88070605u));
  CHECK(load_le_i64(b + 1) == int64_t(0x8807060504030201ull));
  for (size_t n = 0; n <= 8; ++n) {
    uint64_t want = 0;
    for (size_t i = 0; i < n; ++i) want |= uint64_t(b[1 + i]) << (8 * i);
    CHECK(load_le(b + 1, n) == want);
  }
}

TEST_CASE("stores are the loads' inverse, big-endian is most significant byte first") {
  uint8_t b[10] = {};
  store_le16(b, 0xbeef);
  CHECK(load_le16(b) == 0xbeef);
  store_le32(b + 1, 0xdeadbeef);
  CHECK(b[1] == 0xef);
  CHECK(load_le32(b + 1) == 0xdeadbeefu);
  store_le64(b + 2, 0x0123456789abcdefull);
  CHECK(load_le64(b + 2) == 0x0123456789abcdefull);
  uint8_t c[8] = {0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa};
  store_le(c, 0x112233, 3);
  CHECK(c[0] == 0x33);
  CHECK(c[2] == 0x11);
  CHECK(c[3] == 0xaa);  // nothing past n bytes
  store_be32(b, 0x01020304);
  CHECK(b[0] == 0x01);
  CHECK(load_be32(b) == 0x01020304u);
  store_be64(b, 0x0102030405060708ull);
  CHECK(b[7] == 0x08);
  CHECK(load_be64(b) == 0x0102030405060708ull);
}

TEST_CASE("target_value_u64: a register value in its target's byte order, the low-order 8 bytes of wider ones") {
  const uint8_t v[10] = {0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a};
  CHECK(target_value_u64(Endian::Little, v, 2) == 0x0201u);
  CHECK(target_value_u64(Endian::Big, v, 2) == 0x0102u);
  CHECK(target_value_u64(Endian::Big, v, 4) == 0x01020304u);
  CHECK(target_value_u64(Endian::Little, v, 8) == 0x0807060504030201ull);
  CHECK(target_value_u64(Endian::Big, v, 8) == 0x0102030405060708ull);
  // Wider than 8 bytes: the low-order ones, which big-endian keeps at the end.
  CHECK(target_value_u64(Endian::Little, v, 10) == 0x0807060504030201ull);
  CHECK(target_value_u64(Endian::Big, v, 10) == 0x030405060708090aull);
  CHECK(target_value_u64(Endian::Big, v, 0) == 0u);
}

TEST_CASE("store_target_value writes what target_value_u64 reads, the rest of a wide value zero") {
  for (Endian e : {Endian::Little, Endian::Big}) {
    for (size_t size : {1, 2, 4, 8, 10, 16}) {
      uint8_t b[16];
      std::fill(std::begin(b), std::end(b), uint8_t(0xaa));
      store_target_value(e, b, size, 0x0102030405060708ull);
      const uint64_t mask = size >= 8 ? ~0ull : (1ull << (8 * size)) - 1;
      CHECK(target_value_u64(e, b, size) == (0x0102030405060708ull & mask));
      if (size > 8) CHECK(b[e == Endian::Little ? size - 1 : 0] == 0);
      if (size < 16) CHECK(b[size] == 0xaa);  // nothing past size
    }
  }
  uint8_t be[2];
  store_target_value(Endian::Big, be, 2, 0x1234);
  CHECK(be[0] == 0x12);
  CHECK(be[1] == 0x34);
}
