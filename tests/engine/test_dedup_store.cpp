// The index builder's two collections: DedupStore gives the same id to the
// same content (and puts it once), across the open-addressing table's
// growth; UniqueCollector returns each chunk's values sorted and unique.
#include <doctest/doctest.h>

#include <cstring>
#include <vector>

#include "engine/dedup_store.h"
#include "engine/unique_collector.h"

using namespace ttd;

TEST_CASE("dedup store: one id and one put per distinct content, ids in order of first sight, through growth") {
  DedupStore store;
  std::vector<uint64_t> put_order;  // what `put` was called for, by content number
  auto id_of = [&](uint64_t content) {
    uint8_t block[64] = {};
    std::memcpy(block, &content, sizeof content);
    return store.id_of(block, sizeof block, [&] {
      put_order.push_back(content);
      return 1000 + content;  // the "ticket"
    });
  };
  // 5000 distinct contents: the table grows from 1024 slots several times.
  for (uint64_t c = 0; c < 5000; ++c) CHECK(id_of(c) == c);
  // Seen again, in another order: the same ids, nothing put.
  for (uint64_t c = 5000; c-- > 0;) CHECK(id_of(c) == c);
  REQUIRE(put_order.size() == 5000);
  for (uint64_t c = 0; c < 5000; ++c) CHECK(put_order[c] == c);
  REQUIRE(store.tickets().size() == 5000);
  CHECK(store.tickets()[0] == 1000);
  CHECK(store.tickets()[4999] == 5999);
}

TEST_CASE("unique collector: each take is the sorted unique values since the last one") {
  UniqueCollector c;
  // Repeats, values that collide in the direct-mapped cache (same low bits), and big values.
  for (uint64_t v : {7ull, 3ull, 7ull, 7ull, 3ull + 1024, 3ull, ~1ull, 42ull}) c.add(v);
  CHECK(c.take() == std::vector<uint64_t>{3, 7, 42, 3 + 1024, ~1ull});
  // The cache must forget what the last chunk saw: 7 again is new here.
  c.add(7);
  c.add(7);
  CHECK(c.take() == std::vector<uint64_t>{7});
  CHECK(c.take().empty());
  // Many values (the whole cache is cleared) and then a repeat of one of them.
  for (uint64_t v = 0; v < 5000; ++v) c.add(v * 3);
  std::vector<uint64_t> got = c.take();
  REQUIRE(got.size() == 5000);
  CHECK(got[4999] == 4999 * 3);
  c.add(0);
  CHECK(c.take() == std::vector<uint64_t>{0});
}
