#include "engine/query/register_history.h"

#include "engine/summary_filter_gate.h"
#include "state/target_value.h"

namespace ttd::query {

Result<uint16_t> resolve_register(const Trace& t, const std::string& name) {
  const ArchDesc& a = t.arch();
  auto r = a.find(name);
  if (!r) return make_error("register", "no register '" + name + "' on " + a.name);
  if (*r == a.pc_index)
    return make_error("register", "'" + name + "' is the pc, which every step changes; ask `executions` for where a pc ran");
  return *r;
}

namespace {

struct RegisterCollector : EffectVisitor {
  const RegisterQuery* q = nullptr;
  const Trace* t = nullptr;
  std::vector<RegisterWrite>* out = nullptr;
  const StepView* step = nullptr;
  bool active = false;

  void add(uint32_t tidx, uint16_t reg, const uint8_t* value, uint32_t len) {
    if (!active || reg != q->reg) return;
    const auto& slots = t->index().thread_slots();
    uint64_t tid = tidx < slots.size() ? slots[tidx].tid : 0;
    if (q->tid && *q->tid != tid) return;
    RegisterWrite w;
    w.eid = step->eid;
    w.tid = tid;
    w.step_tid = step->tid;
    w.pc = step->pc;
    w.reg = reg;
    if (value) w.value.emplace(value, value + len);
    out->push_back(std::move(w));
  }
  void reg(uint32_t tidx, uint16_t reg, const uint8_t* value, uint32_t len) override { add(tidx, reg, value, len); }
  void reg_unknown(uint32_t tidx, uint16_t reg) override { add(tidx, reg, nullptr, 0); }
  void mem_write(uint64_t, uint64_t, const uint8_t*, uint64_t) override {}
};

}  // namespace

Status scan_register_writes(const Trace& t, const RegisterQuery& q, const std::function<bool(const RegisterWrite&)>& fn) {
  if (q.reg >= t.arch().regs.size() || q.reg >= 256)
    return make_error("register", "register index " + std::to_string(q.reg) + " is not on " + t.arch().name);
  auto plan = plan_scan(t, q.start);
  if (!plan) return plan.error();
  // No filter holds registers (index version 11): the gate answers "maybe"
  // for every group today, and rules groups out once one does.
  GroupKeys keys;
  keys.regs_written.push_back(q.reg);
  const SummaryFilterGate gate(t.index(), std::move(keys));
  auto may_hit = [&](size_t c) {
    return gate.chunk_group_may_hit(c) && ((t.index().summary(c)->regs_written[q.reg >> 6] >> (q.reg & 63)) & 1);
  };
  RegisterCollector col;
  col.q = &q;
  col.t = &t;
  auto collect = [&](ChunkReader& r, uint64_t lo, uint64_t hi, std::vector<RegisterWrite>& out) -> Status {
    col.out = &out;
    col.step = &r.step();
    // Register values are deltas from the chunk start: decode every step.
    while (r.next()) {
      col.active = r.step().eid >= lo;
      if (!r.effects(col)) break;
      if (r.step().eid >= hi) break;
    }
    return r.status();
  };
  return walk_chunks<RegisterWrite>(t, *plan, q.start.direction, q.cancel, may_hit, collect,
                                    [&](RegisterWrite& w) { return fn(w); });
}

Result<std::vector<RegisterWrite>> find_register_writes(const Trace& t, const RegisterQuery& q, size_t limit) {
  std::vector<RegisterWrite> out;
  auto s = scan_register_writes(t, q, [&](const RegisterWrite& w) {
    out.push_back(w);
    return limit == 0 || out.size() < limit;
  });
  if (!s) return s.error();
  return out;
}

namespace {
Result<std::optional<RegisterWrite>> first_write(const Trace& t, RegisterQuery q) {
  auto r = find_register_writes(t, q, 1);
  if (!r) return r.error();
  if (r->empty()) return std::optional<RegisterWrite>();
  return std::optional<RegisterWrite>(std::move(r->front()));
}
}  // namespace

Result<std::optional<RegisterWrite>> previous_register_write(const Trace& t, uint16_t reg, uint64_t at,
                                                             std::optional<uint64_t> tid, const CancelCheck& cancel) {
  if (auto s = check_position(t, at, "at"); !s) return s.error();
  if (at == 0) return std::optional<RegisterWrite>();
  RegisterQuery q;
  q.reg = reg;
  q.tid = tid;
  q.cancel = cancel;
  q.start.window = {0, at};
  q.start.direction = Direction::Backward;
  return first_write(t, q);
}

Result<std::optional<RegisterWrite>> next_register_write(const Trace& t, uint16_t reg, uint64_t at,
                                                         std::optional<uint64_t> tid, const CancelCheck& cancel) {
  if (auto s = check_position(t, at, "at"); !s) return s.error();
  if (at == t.step_count()) return std::optional<RegisterWrite>();
  RegisterQuery q;
  q.reg = reg;
  q.tid = tid;
  q.cancel = cancel;
  q.start.window = {at, t.step_count()};
  q.start.direction = Direction::Forward;
  return first_write(t, q);
}

RegisterChanges register_changes(std::shared_ptr<const Trace> t, RegisterQuery q) {
  return RegisterChanges(std::move(q), [t](const RegisterQuery& q, size_t limit) { return find_register_writes(*t, q, limit); });
}

std::optional<uint64_t> register_value_u64(const Trace& t, const RegisterWrite& w) {
  if (!w.value || w.value->empty() || w.value->size() > 8) return std::nullopt;
  return target_value_u64(t.arch().endian, w.value->data(), w.value->size());
}

}  // namespace ttd::query
