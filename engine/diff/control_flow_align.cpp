#include "engine/diff/control_flow_align.h"

#include <vector>

#include "engine/step_timeline.h"

namespace ttd::diff {

namespace {

struct PathStep {
  uint64_t pc;
  uint8_t kind;
  bool operator==(const PathStep&) const = default;
};

// Fills `out` with up to n steps from `from`.
Status fill(StepTimeline& tl, uint64_t from, size_t n, std::vector<PathStep>& out, const std::string& path) {
  out.clear();
  if (n == 0) return {};
  ScanEnd e = tl.forward(
      from,
      [&](uint64_t, const TimelineStep& s) {
        out.push_back({s.pc, s.kind});
        return out.size() < n;
      },
      {});
  if (e == ScanEnd::Corrupt) return make_error(path, "corrupt index chunk near EID " + std::to_string(from));
  return {};
}

}  // namespace

Result<std::optional<PathDivergence>> first_path_divergence(const Trace& a, const Trace& b,
                                                             const std::function<bool()>& cancel) {
  StepTimeline ta(a, 4), tb(b, 4);
  const uint64_t na = a.step_count(), nb = b.step_count(), common = std::min(na, nb);
  constexpr size_t kBatch = 1 << 16;
  std::vector<PathStep> sa, sb;
  sa.reserve(kBatch), sb.reserve(kBatch);
  for (uint64_t at = 0; at < common; at += kBatch) {
    if (cancel && cancel()) return make_error("diff", "interrupted at EID " + std::to_string(at));
    size_t n = size_t(std::min<uint64_t>(kBatch, common - at));
    if (auto s = fill(ta, at, n, sa, a.path()); !s) return s.error();
    if (auto s = fill(tb, at, n, sb, b.path()); !s) return s.error();
    if (sa.size() != n || sb.size() != n) return make_error("diff", "index holds fewer steps than it claims");
    if (sa == sb) continue;
    for (size_t i = 0; i < n; ++i)
      if (!(sa[i] == sb[i])) return std::optional<PathDivergence>(PathDivergence{at + i, true, true, sa[i].pc, sb[i].pc});
  }
  if (na == nb) return std::optional<PathDivergence>();
  PathDivergence d;
  d.eid = common;
  d.a_has_step = na > common;
  d.b_has_step = nb > common;
  std::vector<PathStep> one;
  if (d.a_has_step) {
    if (auto s = fill(ta, common, 1, one, a.path()); !s) return s.error();
    if (!one.empty()) d.pc_a = one[0].pc;
  }
  if (d.b_has_step) {
    if (auto s = fill(tb, common, 1, one, b.path()); !s) return s.error();
    if (!one.empty()) d.pc_b = one[0].pc;
  }
  return std::optional<PathDivergence>(d);
}

}  // namespace ttd::diff
