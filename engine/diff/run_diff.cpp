#include "engine/diff/run_diff.h"

#include <cstdio>

#include "engine/step_timeline.h"

namespace ttd::diff {

namespace {

std::optional<uint64_t> first_pc(const Trace& t) {
  std::optional<uint64_t> pc;
  StepTimeline tl(t, 1);
  tl.forward(0, [&](uint64_t, const TimelineStep& s) { return pc = s.pc, false; }, {});
  return pc;
}

}  // namespace

Status check_comparable(const Trace& a, const Trace& b, bool any_program) {
  const std::string both = a.path() + ", " + b.path();
  if (a.info().arch != b.info().arch)
    return make_error(both, "cannot compare runs of different architectures (" + a.arch().name + " and " + b.arch().name + ")");
  if (any_program) return {};
  const auto& pa = a.info().exec_path;
  const auto& pb = b.info().exec_path;
  if (!pa.empty() && !pb.empty()) {
    if (pa != pb)
      return make_error(both, "cannot compare runs of different programs (" + pa + " and " + pb +
                                  "); --any-program compares them anyway");
    return {};
  }
  // The traces do not name their programs: runs of one program start at
  // the same pc (the recorder is deterministic about load addresses).
  auto fa = first_pc(a), fb = first_pc(b);
  if (fa != fb) {
    char pcs[64];
    std::snprintf(pcs, sizeof pcs, "0x%llx and 0x%llx", (unsigned long long)fa.value_or(0), (unsigned long long)fb.value_or(0));
    return make_error(both, std::string("cannot compare runs of different programs (they start at different pcs, ") + pcs +
                                "); --any-program compares them anyway");
  }
  return {};
}

Result<DiffReport> diff_runs(std::shared_ptr<const Trace> a, std::shared_ptr<const Trace> b, const DiffOptions& o) {
  if (auto s = check_comparable(*a, *b, o.any_program); !s) return s.error();
  DiffReport r;
  r.steps_a = a->step_count(), r.steps_b = b->step_count();
  auto d = first_path_divergence(*a, *b, o.cancel);
  if (!d) return d.error();
  r.divergence = *d;
  if (r.divergence && r.divergence->eid > 0) {
    uint64_t at = r.divergence->eid - 1;
    auto e = explain_branch(a, b, at, at);
    if (!e) return e.error();
    r.branch = *e;
    if (o.origins) {
      OriginLimits l = o.origin_limits;
      if (!l.cancel) l.cancel = o.cancel;
      r.origins = trace_input_origins(*a, *b, *r.branch, l);
    }
  }
  if (o.compare_calls) {
    CallDiffOptions co = o.calls;
    if (!co.cancel) co.cancel = o.cancel;
    auto c = diff_calls(a, b, co);
    if (!c) return c.error();
    r.calls = std::move(*c);
  }
  return r;
}

}  // namespace ttd::diff
