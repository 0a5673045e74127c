// The one place scans ask the summary filters (engine/summary_filter.h)
// which summary groups may hold a hit: breakpoint and watchpoint scans
// (engine/chunk_scan.h) and the history queries (engine/query/: executions,
// memory history, register history, origin's last writers, value search)
// build a SummaryFilterGate from what they look for and read a group's
// chunk summaries only when it says "maybe".
//
// Contract: a group answers "no" only when a readable filter rules out
// every key of the scan. It answers "maybe" when a filter group cannot be
// read (the summaries then report the damage), and for keys no filter
// holds: a register written (index version 11 keeps no register filter),
// a pc range of more than kMaxProbePcs pcs, a memory range of more than
// GroupAccessFilter::kMaxProbePages pages or whose possibly touched pages
// need more than kMaxProbeLines line probes, "any memory change". A scan
// with no keys at all can hit nothing: every group answers "no".
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace ttd {

class IndexFile;

// What a scan looks for; a chunk may hold a hit if it may hold any of these.
struct GroupKeys {
  std::vector<uint64_t> pcs;  // pcs run
  struct PcRange {
    uint64_t lo = 0, hi = 0;  // [lo, hi); hi 0 stands for 2^64
  };
  std::vector<PcRange> pc_ranges;  // any pc of the range run
  struct Memory {
    uint64_t addr = 0, len = 0;
    bool write = false, read = false;  // which kinds of access count
  };
  std::vector<Memory> memory;
  std::vector<uint16_t> regs_written;  // no filter: always "maybe"
  bool any_memory_change = false;     // no filter: always "maybe"
};

class SummaryFilterGate {
 public:
  // A pc range is probed pc by pc up to this many pcs (each probe a few
  // bit tests, far cheaper than decoding a summary group); wider: "maybe".
  static constexpr uint64_t kMaxProbePcs = 256;

  SummaryFilterGate(const IndexFile& idx, GroupKeys keys);

  uint64_t chunks_per_group() const { return per_group_; }
  uint64_t group_of(size_t chunk) const { return chunk / per_group_; }
  // Whether summary group g may hold a hit (false: certainly not).
  bool group_may_hit(uint64_t g) const;
  // The same for chunk c's group; remembers the last group's answer, so a
  // scan that asks chunk by chunk reads each group's filters once.
  bool chunk_group_may_hit(size_t c) const;

 private:
  bool filters_may_hit(uint64_t g) const;

  const IndexFile& idx_;
  GroupKeys keys_;
  uint64_t per_group_ = 1;
  bool always_maybe_ = false;  // a key no filter holds
  bool want_pcs_ = false, want_access_ = false;
  mutable uint64_t memo_group_ = UINT64_MAX;
  mutable bool memo_answer_ = true;
};

// Test and benchmark hooks, process-wide. set_summary_filters_enabled(false)
// makes every group answer "maybe" (the scans then read every chunk summary,
// as before index version 11), so tests can compare answers with and without
// the filters. The counters say how many group questions were asked and how
// many groups the filters ruled out.
void set_summary_filters_enabled(bool on);
bool summary_filters_enabled();
struct SummaryFilterCounters {
  std::atomic<uint64_t> asked{0}, ruled_out{0};
};
SummaryFilterCounters& summary_filter_counters();

}  // namespace ttd
