#include "engine/query/executions.h"

#include <algorithm>

#include "engine/summary_filter_gate.h"

namespace ttd::query {

Status check_pc_range(uint64_t lo, uint64_t hi) {
  if (hi <= lo && hi != 0)
    return make_error("pc range", lo == hi ? "empty pc range" : "reversed pc range: end " + std::to_string(hi) +
                                                                    " is below start " + std::to_string(lo));
  if (hi == 0 && lo == 0) return make_error("pc range", "empty pc range");
  return {};
}

namespace {

// hi == 0 stands for 2^64 (a range reaching the top of the address space).
bool in_range(uint64_t pc, uint64_t lo, uint64_t hi) { return pc >= lo && (hi == 0 || pc < hi); }

bool chunk_may_run(const ChunkSummary& s, uint64_t lo, uint64_t hi) {
  auto it = std::lower_bound(s.pcs.begin(), s.pcs.end(), lo);
  return it != s.pcs.end() && in_range(*it, lo, hi);
}

class ExecutionScan {
 public:
  ExecutionScan(const Trace& t, const ExecutionQuery& q, const ScanPlan& p, const std::function<bool(const Execution&)>& fn)
      : t_(t), q_(q), plan_(p), fn_(fn), reader_(t), gate_(t.index(), pc_keys(q)) {}

  Status run() { return q_.start.direction == Direction::Forward ? forward() : backward(); }

 private:
  // First EID of the resolution window after (forward) / last EID of the
  // one before (backward) the window holding eid.
  uint64_t window_index(uint64_t eid) const { return (eid - q_.start.window.from) / q_.resolution; }
  uint64_t after_window(uint64_t eid) const { return q_.start.window.from + (window_index(eid) + 1) * q_.resolution; }
  uint64_t window_start(uint64_t eid) const { return q_.start.window.from + window_index(eid) * q_.resolution; }

  static GroupKeys pc_keys(const ExecutionQuery& q) {
    GroupKeys k;
    k.pc_ranges.push_back({q.pc_lo, q.pc_hi});
    return k;
  }
  // The group's filters first (engine/summary_filter_gate.h), then the
  // chunk's summary.
  bool chunk_may_hit(size_t c) const {
    return gate_.chunk_group_may_hit(c) && chunk_may_run(*reader_.summary(c), q_.pc_lo, q_.pc_hi);
  }

  bool matches(const StepView& s) const { return in_range(s.pc, q_.pc_lo, q_.pc_hi) && (!q_.tid || *q_.tid == s.tid); }

  bool deliver(const StepView& s) {
    Execution e{s.eid, s.tid, s.pc, s.size, s.kind, ResumeToken{s.eid, 1}};
    return fn_(e);
  }

  Status forward() {
    uint64_t cur = plan_.first, last = plan_.last;
    if (plan_.skip) cur = q_.resolution ? after_window(cur) : cur + 1;
    while (cur <= last) {
      if (q_.cancel && q_.cancel()) return interrupted_error();
      size_t c = reader_.chunk_of(cur);
      const ChunkEntry ch = reader_.chunk(c);
      uint64_t ch_end = ch.first_eid + ch.steps;
      if (ch.steps == 0 || ch_end <= cur) break;
      if (chunk_may_hit(c)) {
        if (auto s = reader_.load(c); !s) return s;
        while (reader_.next()) {
          const StepView& s = reader_.step();
          if (s.eid > last) return {};
          if (s.eid < cur || !matches(s)) continue;
          if (!deliver(s)) return {};
          if (q_.resolution) {
            cur = after_window(s.eid);
            if (cur >= ch_end) break;
          }
        }
        if (auto s = reader_.status(); !s) return s;
      }
      cur = std::max(cur, ch_end);
    }
    return {};
  }

  Status backward() {
    uint64_t cur = plan_.first;
    const uint64_t last = plan_.last;
    if (plan_.skip) {
      uint64_t next = q_.resolution ? window_start(cur) : cur;
      if (next <= last) return {};
      cur = next - 1;
    }
    std::vector<StepView> hits;
    for (;;) {
      if (q_.cancel && q_.cancel()) return interrupted_error();
      size_t c = reader_.chunk_of(cur);
      const ChunkEntry ch = reader_.chunk(c);
      if (ch.steps && chunk_may_hit(c)) {
        if (auto s = reader_.load(c); !s) return s;
        hits.clear();
        while (reader_.next() && reader_.step().eid <= cur)
          if (reader_.step().eid >= last && matches(reader_.step())) hits.push_back(reader_.step());
        if (auto s = reader_.status(); !s) return s;
        for (auto it = hits.rbegin(); it != hits.rend(); ++it) {
          if (it->eid > cur) continue;
          if (!deliver(*it)) return {};
          if (q_.resolution) {
            uint64_t ws = window_start(it->eid);
            if (ws <= last) return {};
            cur = ws - 1;
          }
        }
      }
      if (ch.first_eid <= last || ch.first_eid == 0) return {};
      cur = std::min(cur, ch.first_eid - 1);
    }
  }

  const Trace& t_;
  const ExecutionQuery& q_;
  ScanPlan plan_;
  const std::function<bool(const Execution&)>& fn_;
  ChunkReader reader_;
  SummaryFilterGate gate_;
};

}  // namespace

Status scan_executions(const Trace& t, const ExecutionQuery& q, const std::function<bool(const Execution&)>& fn) {
  if (auto s = check_pc_range(q.pc_lo, q.pc_hi); !s) return s;
  auto plan = plan_scan(t, q.start);
  if (!plan) return plan.error();
  if (t.index().chunk_count() == 0) return {};
  return ExecutionScan(t, q, *plan, fn).run();
}

Result<std::vector<Execution>> find_executions(const Trace& t, const ExecutionQuery& q, size_t limit) {
  std::vector<Execution> out;
  auto s = scan_executions(t, q, [&](const Execution& e) {
    out.push_back(e);
    return limit == 0 || out.size() < limit;
  });
  if (!s) return s.error();
  return out;
}

Executions executions(std::shared_ptr<const Trace> t, ExecutionQuery q) {
  return Executions(std::move(q), [t](const ExecutionQuery& q, size_t limit) { return find_executions(*t, q, limit); });
}

}  // namespace ttd::query
