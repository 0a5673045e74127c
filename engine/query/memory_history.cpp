#include "engine/query/memory_history.h"

#include "engine/summary_filter_gate.h"

namespace ttd::query {

const char* access_kind_name(AccessKind k) { return k == AccessKind::Read ? "read" : "write"; }

Result<AccessFilter> parse_access_filter(const std::string& s) {
  if (s == "r" || s == "read") return AccessFilter::Read;
  if (s == "w" || s == "write") return AccessFilter::Write;
  if (s == "rw" || s == "wr" || s == "access" || s == "a") return AccessFilter::Access;
  return make_error("kind", "expected r, w or rw (read, write or access), got '" + s + "'");
}

namespace {

// Collects the accesses of the steps in [lo, hi] that match the query.
struct AccessCollector : EffectVisitor {
  const MemoryQuery* q = nullptr;
  std::vector<MemoryAccessView>* out = nullptr;
  const StepView* step = nullptr;
  bool active = false;

  void add(uint64_t pid, uint64_t addr, uint64_t size, const uint8_t* value, AccessKind kind) {
    if (!active || !q->range.overlaps(addr, size) || (q->pid && *q->pid != pid)) return;
    MemoryAccessView v;
    v.eid = step->eid;
    v.tid = step->tid;
    v.pid = pid;
    v.pc = step->pc;
    v.kind = kind;
    v.addr = addr;
    v.size = size;
    v.value = value;
    out->push_back(v);
  }
  bool wants_writes() const { return q->kind != AccessFilter::Read; }
  bool wants_reads() const { return q->kind != AccessFilter::Write; }

  void reg(uint32_t, uint16_t, const uint8_t*, uint32_t) override {}
  void mem_write(uint64_t pid, uint64_t addr, const uint8_t* bytes, uint64_t len) override {
    if (wants_writes()) add(pid, addr, len, bytes, AccessKind::Write);
  }
  void mem_unknown(uint64_t pid, uint64_t addr, uint64_t size) override {
    if (wants_writes()) add(pid, addr, size, nullptr, AccessKind::Write);
  }
  void mem_read(uint64_t pid, uint64_t addr, uint64_t size, const uint8_t* bytes) override {
    if (wants_reads()) add(pid, addr, size, bytes, AccessKind::Read);
  }
};

}  // namespace

Status scan_memory_accesses(const Trace& t, const MemoryQuery& q, const std::function<bool(const MemoryAccessView&)>& fn) {
  if (auto r = make_range(q.range.addr, q.range.len, "memory range"); !r) return r.error();
  auto plan = plan_scan(t, q.start);
  if (!plan) return plan.error();
  GroupKeys keys;
  keys.memory.push_back({q.range.addr, q.range.len, q.kind != AccessFilter::Read, q.kind != AccessFilter::Write});
  const SummaryFilterGate gate(t.index(), std::move(keys));
  auto may_hit = [&](size_t c) {
    if (!gate.chunk_group_may_hit(c)) return false;
    const auto summary = t.index().summary(c);
    const ChunkSummary& s = *summary;
    return (q.kind != AccessFilter::Read && s.writes(q.range.addr, q.range.len)) ||
           (q.kind != AccessFilter::Write && s.reads(q.range.addr, q.range.len));
  };
  AccessCollector col;
  col.q = &q;
  auto collect = [&](ChunkReader& r, uint64_t lo, uint64_t hi, std::vector<MemoryAccessView>& out) -> Status {
    col.out = &out;
    col.step = &r.step();
    while (r.next()) {
      const StepView& s = r.step();
      col.active = s.eid >= lo && (!q.tid || *q.tid == s.tid);
      if (!r.effects(col)) break;
      if (s.eid >= hi) break;
    }
    return r.status();
  };
  return walk_chunks<MemoryAccessView>(t, *plan, q.start.direction, q.cancel, may_hit, collect, fn);
}

Result<std::vector<MemoryAccess>> find_memory_accesses(const Trace& t, const MemoryQuery& q, size_t limit) {
  std::vector<MemoryAccess> out;
  auto s = scan_memory_accesses(t, q, [&](const MemoryAccessView& v) {
    MemoryAccess a{v.eid, v.tid, v.pid, v.pc, v.kind, v.addr, v.size, std::nullopt, v.next};
    if (v.value) a.value.emplace(v.value, v.value + v.size);
    out.push_back(std::move(a));
    return limit == 0 || out.size() < limit;
  });
  if (!s) return s.error();
  return out;
}

MemoryHistory memory_history(std::shared_ptr<const Trace> t, MemoryQuery q) {
  return MemoryHistory(std::move(q), [t](const MemoryQuery& q, size_t limit) { return find_memory_accesses(*t, q, limit); });
}

}  // namespace ttd::query
