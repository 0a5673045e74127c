#include "engine/query/value_search.h"

#include <cctype>

#include "engine/cursor.h"
#include "engine/index_file.h"
#include "engine/query/memory_pattern.h"
#include "engine/state_apply.h"
#include "engine/summary_filter_gate.h"

namespace ttd::query {

Result<std::vector<uint8_t>> parse_hex_bytes(const std::string& text) {
  std::string digits;
  std::string_view s = text;
  if (s.size() >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s.remove_prefix(2);
  for (char ch : s) {
    if (std::isspace(static_cast<unsigned char>(ch))) continue;
    if (!std::isxdigit(static_cast<unsigned char>(ch)))
      return make_error("bytes", std::string("malformed hex: '") + ch + "' is not a hex digit in '" + text + "'");
    digits += ch;
  }
  if (digits.empty()) return make_error("bytes", "empty byte pattern");
  if (digits.size() % 2) return make_error("bytes", "malformed hex: odd number of digits in '" + text + "' (two per byte)");
  std::vector<uint8_t> out(digits.size() / 2);
  for (size_t i = 0; i < out.size(); ++i) out[i] = uint8_t(std::stoi(digits.substr(2 * i, 2), nullptr, 16));
  return out;
}

Status check_pattern_size(size_t pattern_len, size_t max) {
  if (pattern_len <= max) return {};
  return make_error("bytes", "pattern of " + std::to_string(pattern_len) + " bytes is longer than the limit of " +
                                 std::to_string(max) + " (raise it with --max-pattern N)");
}

namespace {

struct SearchBounds {
  uint64_t lo = 0, last = ~0ull;
};

Result<SearchBounds> bounds_of(const std::optional<AddressRange>& within, size_t pattern_len, size_t max_pattern) {
  if (pattern_len == 0) return make_error("bytes", "empty byte pattern");
  if (auto s = check_pattern_size(pattern_len, max_pattern); !s) return s.error();
  SearchBounds b;
  if (within) {
    if (auto r = make_range(within->addr, within->len, "within"); !r) return r.error();
    if (within->len < pattern_len)
      return make_error("within", "the range (" + std::to_string(within->len) + " bytes) is shorter than the pattern (" +
                                      std::to_string(pattern_len) + " bytes)");
    b.lo = within->addr;
    b.last = within->addr + within->len - 1;
  }
  return b;
}

// Searches every process (or one) of a state, in pid then address order.
bool search_state(const MachineState& st, const PatternFinder& finder, const SearchBounds& b,
                  std::optional<uint64_t> pid, const std::function<bool(uint64_t pid, uint64_t addr)>& fn,
                  const CancelCheck& cancel = {}) {
  for (const auto& [p, proc] : st.processes()) {
    if (pid && *pid != p) continue;
    if (!finder.find(proc.memory, b.lo, b.last, [&](uint64_t a) { return fn(p, a); }, cancel)) return false;
  }
  return true;
}

}  // namespace

Status scan_memory(std::shared_ptr<const Trace> t, const SpaceSearch& q, const std::function<bool(const ValueMatch&)>& fn,
                   const SearchControl& control) {
  auto b = bounds_of(q.within, q.pattern.size(), control.max_pattern);
  if (!b) return b.error();
  if (auto s = check_position(*t, q.at, "at"); !s) return s.error();
  Cursor c(t);
  if (auto s = c.seek(q.at); !s) return s.error();
  PatternFinder finder(q.pattern);
  size_t found = 0;
  bool fn_stopped = false;
  bool done = search_state(c.state(), finder, *b, q.pid, [&](uint64_t pid, uint64_t addr) {
    fn_stopped = !fn(ValueMatch{pid, addr}) || (q.limit != 0 && ++found >= q.limit);
    return !fn_stopped;
  }, control.cancel);
  if (!done && !fn_stopped) return interrupted_error();
  return {};
}

Result<std::vector<ValueMatch>> search_memory(std::shared_ptr<const Trace> t, const SpaceSearch& q,
                                              const SearchControl& control) {
  std::vector<ValueMatch> out;
  Status s = scan_memory(t, q, [&](const ValueMatch& m) {
    out.push_back(m);
    return true;
  }, control);
  if (!s) return s.error();
  return out;
}

namespace {

// Applies memory effects to a state and remembers what each step changed.
struct MemoryReplay : EffectVisitor {
  struct Change {
    uint64_t pid, addr, len;
  };
  StateApplier* apply = nullptr;
  bool active = false;
  std::vector<Change> changes;

  void note(uint64_t pid, uint64_t addr, uint64_t len) {
    if (active && len) changes.push_back({pid, addr, len});
  }
  void reg(uint32_t, uint16_t, const uint8_t*, uint32_t) override {}
  void mem_write(uint64_t pid, uint64_t addr, const uint8_t* b, uint64_t len) override {
    if (!active) return;
    apply->mem_write(pid, addr, b, len);
    note(pid, addr, len);
  }
  void mem_read(uint64_t pid, uint64_t addr, uint64_t size, const uint8_t* b) override {
    if (!active || !b) return;
    apply->mem_read(pid, addr, size, b);
    note(pid, addr, size);
  }
  void mem_unknown(uint64_t pid, uint64_t addr, uint64_t size) override {
    if (active) apply->mem_unknown(pid, addr, size);
  }
  void mem_map(uint64_t pid, uint64_t addr, uint64_t size, uint8_t prot, std::string_view name) override {
    if (!active) return;
    apply->mem_map(pid, addr, size, prot, name);
    note(pid, addr, size);
  }
  void mem_unmap(uint64_t pid, uint64_t addr, uint64_t size) override {
    if (active) apply->mem_unmap(pid, addr, size);
  }
};

bool chunk_changes_memory(const ChunkSummary& s, const std::optional<AddressRange>& within) {
  if (!within) return !s.pages_written.empty() || !s.pages_read.empty();
  return s.writes(within->addr, within->len) || s.reads(within->addr, within->len);
}

}  // namespace

Result<std::optional<Appearance>> first_appearance(std::shared_ptr<const Trace> t, const TimeSearch& q) {
  auto b = bounds_of(q.within, q.pattern.size(), q.max_pattern);
  if (!b) return b.error();
  if (auto s = check_position(*t, q.window.from, "from"); !s) return s.error();
  if (auto s = check_position(*t, q.window.to, "to"); !s) return s.error();
  if (q.window.from > q.window.to)
    return make_error("window", "reversed EID window: from " + std::to_string(q.window.from) + " is after to " +
                                    std::to_string(q.window.to));
  Cursor c(t);
  if (auto s = c.seek(q.window.from); !s) return s.error();
  std::optional<Appearance> found;
  PatternFinder finder(q.pattern);
  bool done = search_state(c.state(), finder, *b, q.pid, [&](uint64_t pid, uint64_t addr) {
    found = Appearance{q.window.from, std::nullopt, pid, addr};
    return false;
  }, q.cancel);
  if (!done && !found) return interrupted_error();
  if (found || q.window.from == q.window.to) return found;

  MachineState st = c.state();
  StateApplier applier(st, t->index().thread_slots());
  MemoryReplay replay;
  replay.apply = &applier;
  const size_t pat = q.pattern.size();
  ChunkReader reader(*t);
  GroupKeys keys;
  if (q.within) keys.memory.push_back({q.within->addr, q.within->len, true, true});
  else keys.any_memory_change = true;
  const SummaryFilterGate gate(t->index(), std::move(keys));
  for (size_t ch = reader.chunk_of(q.window.from); ch <= reader.chunk_of(q.window.to - 1); ++ch) {
    if (q.cancel && q.cancel()) return interrupted_error();
    if (!gate.chunk_group_may_hit(ch) || !chunk_changes_memory(*reader.summary(ch), q.within)) continue;
    if (auto s = reader.load(ch); !s) return s.error();
    while (reader.next()) {
      const StepView& s = reader.step();
      if (s.eid >= q.window.to) break;
      // A chunk of steps that each change memory is a lot of pattern checks.
      if (q.cancel && s.eid % 256 == 0 && q.cancel()) return interrupted_error();
      replay.active = s.eid >= q.window.from;
      replay.changes.clear();
      if (!reader.effects(replay)) break;
      for (const auto& chg : replay.changes) {
        if (q.pid && *q.pid != chg.pid) continue;
        const ProcessState* proc = st.find_process(chg.pid);
        if (!proc) continue;
        // Only a match overlapping the changed bytes can be new.
        uint64_t lo = chg.addr >= pat - 1 ? chg.addr - (pat - 1) : 0;
        uint64_t last = chg.addr + chg.len - 1;
        last = last + (pat - 1) < last ? ~0ull : last + (pat - 1);
        lo = std::max(lo, b->lo);
        last = std::min(last, b->last);
        finder.find(proc->memory, lo, last, [&](uint64_t addr) {
          found = Appearance{s.eid + 1, s.eid, chg.pid, addr};
          return false;
        });
        if (found) return found;
      }
    }
    if (auto s = reader.status(); !s) return s.error();
  }
  return found;
}

}  // namespace ttd::query
