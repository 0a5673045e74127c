// Amber's -p option, for the test guest: decides which thread-
// synchronisation escape records go before which instruction, from the
// guest's pthread-like entry points.
//   - signal kinds (unlock, cond_signal, cond_broadcast): at the function's
//     first instruction, after incrementing the sync point's count;
//   - wait kinds (lock, trylock, cond_wait): at the instruction the function
//     returns to, with the sync point's current count; trylock only when it
//     succeeded (returned 0);
//   - calls made inside a traced function (cond_wait's unlock and lock) are
//     internal and get no record.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

namespace ttd::test {

struct SyncEntryPoints {
  uint32_t lock, trylock, unlock, signal, broadcast, wait;
};

struct SyncRecord {
  uint32_t type, sync_point, count;
};

class SyncTracker {
 public:
  explicit SyncTracker(SyncEntryPoints entries) : e_(entries) {}
  // Before each instruction: its pc, and r3 and lr (at a function's entry,
  // the first argument and the return address; at the return, r3 is the
  // result).
  std::vector<SyncRecord> before_instruction(uint32_t pc, uint32_t r3, uint32_t lr);

 private:
  struct Active {
    uint32_t return_to;
    bool wait_kind;
    uint32_t type, sync_point;
  };
  SyncEntryPoints e_;
  std::optional<Active> active_;
  std::map<uint32_t, uint32_t> counts_;
};

}  // namespace ttd::test
