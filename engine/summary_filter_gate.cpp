#include "engine/summary_filter_gate.h"

#include "engine/index_file.h"

namespace ttd {

namespace {
std::atomic<bool> g_filters_enabled{true};
}  // namespace

void set_summary_filters_enabled(bool on) { g_filters_enabled.store(on); }
bool summary_filters_enabled() { return g_filters_enabled.load(); }
SummaryFilterCounters& summary_filter_counters() {
  static SummaryFilterCounters c;
  return c;
}

SummaryFilterGate::SummaryFilterGate(const IndexFile& idx, GroupKeys keys) : idx_(idx), keys_(std::move(keys)) {
  per_group_ = idx_.chunks_per_filter() ? idx_.chunks_per_filter() : 1;
  always_maybe_ = !keys_.regs_written.empty() || keys_.any_memory_change;
  for (const auto& r : keys_.pc_ranges) {
    // hi 0 is 2^64: hi - lo wraps to the range's width either way.
    const uint64_t width = r.hi - r.lo;
    if (width == 0 || width > kMaxProbePcs) always_maybe_ = true;
  }
  want_pcs_ = !keys_.pcs.empty() || !keys_.pc_ranges.empty();
  want_access_ = !keys_.memory.empty();
}

bool SummaryFilterGate::filters_may_hit(uint64_t g) const {
  if (want_pcs_) {
    const auto f = idx_.pc_filter(g);
    if (!f) return true;
    for (uint64_t pc : keys_.pcs)
      if (f->may_run(pc)) return true;
    for (const auto& r : keys_.pc_ranges)
      for (uint64_t pc = r.lo; pc != r.hi; ++pc)
        if (f->may_run(pc)) return true;
  }
  if (want_access_) {
    const auto f = idx_.access_filter(g);
    if (!f) return true;
    for (const auto& m : keys_.memory) {
      if (m.write && f->may_write(m.addr, m.len)) return true;
      if (m.read && f->may_read(m.addr, m.len)) return true;
    }
  }
  return false;
}

bool SummaryFilterGate::group_may_hit(uint64_t g) const {
  if (always_maybe_ || !summary_filters_enabled()) return true;
  auto& counters = summary_filter_counters();
  counters.asked.fetch_add(1, std::memory_order_relaxed);
  const bool may = filters_may_hit(g);
  if (!may) counters.ruled_out.fetch_add(1, std::memory_order_relaxed);
  return may;
}

bool SummaryFilterGate::chunk_group_may_hit(size_t c) const {
  const uint64_t g = group_of(c);
  if (g != memo_group_) {
    memo_answer_ = group_may_hit(g);
    memo_group_ = g;
  }
  return memo_answer_;
}

}  // namespace ttd
