// ttd diff A B [--json] [--limit N] [--no-calls] [--any-program]: where two
// runs of one program diverge (by control flow, not by EID) and how their
// calls differ. Exit status as diff(1): 0 identical, 1 different, 2 trouble.
#include <csignal>
#include <iostream>
#include <nlohmann/json.hpp>

#include "engine/diff/run_diff.h"
#include "tools/ttd/commands.h"
#include "tools/ttd/trace_options.h"

namespace ttd::cli {

namespace {

volatile std::sig_atomic_t g_interrupted = 0;

struct DiffCliOptions {
  TraceOptions a, b;
  bool json = false, no_calls = false, any_program = false;
  size_t limit = 50, resync = 1024;
};

using J = nlohmann::ordered_json;

J opt_json(const std::optional<std::string>& v) { return v ? J(*v) : J(nullptr); }

J insn_json(const diff::InstructionDelta& d) {
  J j{{"eid_a", d.eid_a}, {"eid_b", d.eid_b}, {"pc", hex_u64(d.pc)}, {"instruction", d.instruction}};
  j["differing_inputs"] = J::array();
  for (const auto& v : d.inputs) j["differing_inputs"].push_back({{"what", v.what}, {"a", opt_json(v.a)}, {"b", opt_json(v.b)}});
  return j;
}

J call_json(const std::optional<query::Call>& c) {
  if (!c) return nullptr;
  J j{{"thread", c->tid}, {"depth", c->depth}};
  j["function"] = c->function ? J(hex_u64(*c->function)) : J(nullptr);
  j["call_site"] = hex_u64(c->call_site);
  j["entry_eid"] = c->entry_eid;
  j["exit_eid"] = c->exit_eid ? J(*c->exit_eid) : J(nullptr);
  j["return_value"] = c->return_value ? J(hex_u64(*c->return_value)) : J(nullptr);
  if (!c->args.empty()) j["args"] = c->args;
  if (!c->symbol.empty()) j["symbol"] = c->symbol;
  return j;
}

J report_json(const diff::DiffReport& r) {
  J j{{"identical", r.identical()}, {"steps_a", r.steps_a}, {"steps_b", r.steps_b}};
  if (!r.divergence) {
    j["first_divergence"] = nullptr;
  } else {
    const auto& d = *r.divergence;
    J v{{"eid", d.eid}};
    v["pc_a"] = d.a_has_step ? J(hex_u64(d.pc_a)) : J(nullptr);
    v["pc_b"] = d.b_has_step ? J(hex_u64(d.pc_b)) : J(nullptr);
    if (r.branch) {
      v["branch"] = insn_json(r.branch->branch);
      v["flags_set_by"] = r.branch->flags_set_by ? insn_json(*r.branch->flags_set_by) : J(nullptr);
    }
    j["first_divergence"] = v;
  }
  if (r.calls) {
    J c{{"calls_a", r.calls->calls_a}, {"calls_b", r.calls->calls_b}, {"matched", r.calls->matched},
        {"differences", r.calls->total}};
    c["shown"] = J::array();
    for (const auto& d : r.calls->deltas)
      c["shown"].push_back({{"kind", diff::call_delta_name(d.kind)}, {"a", call_json(d.a)}, {"b", call_json(d.b)}});
    j["calls"] = c;
  }
  return j;
}

std::string value_text(const std::optional<std::string>& v) { return v ? *v : "??"; }

void print_insn(std::ostream& os, const char* label, const diff::InstructionDelta& d) {
  os << label << "EID " << d.eid_a;
  if (d.eid_b != d.eid_a) os << " (B: " << d.eid_b << ")";
  os << "  pc " << hex_u64(d.pc) << "  " << (d.instruction.empty() ? "(code bytes unknown)" : d.instruction) << "\n";
  if (d.inputs.empty()) os << "    no input it reads differs\n";
  for (const auto& v : d.inputs) os << "    " << v.what << ": A " << value_text(v.a) << "  B " << value_text(v.b) << "\n";
}

std::string call_text(const query::Call& c) {
  std::string s = (c.function ? hex_u64(*c.function) : std::string("?")) + " called from " + hex_u64(c.call_site) +
                  " at EID " + std::to_string(c.entry_eid) + " (depth " + std::to_string(c.depth) + ")";
  if (!c.symbol.empty()) s = c.symbol + " " + s;
  s += c.return_value ? ", returned " + hex_u64(*c.return_value) : std::string(", return value unknown");
  return s;
}

void print_report(std::ostream& os, const diff::DiffReport& r, const std::string& pa, const std::string& pb) {
  os << "A: " << pa << " (" << r.steps_a << " steps)\nB: " << pb << " (" << r.steps_b << " steps)\n";
  if (!r.divergence) {
    os << "control flow: identical\n";
  } else {
    const auto& d = *r.divergence;
    os << "control flow: first divergence at EID " << d.eid << ": A "
       << (d.a_has_step ? "runs pc " + hex_u64(d.pc_a) : std::string("has ended")) << ", B "
       << (d.b_has_step ? "runs pc " + hex_u64(d.pc_b) : std::string("has ended")) << "\n";
    if (r.branch) {
      print_insn(os, "  branch  ", r.branch->branch);
      if (r.branch->flags_set_by) print_insn(os, "  flags set by  ", *r.branch->flags_set_by);
    }
  }
  if (r.calls) {
    const auto& c = *r.calls;
    os << "calls: " << c.calls_a << " in A, " << c.calls_b << " in B, " << c.matched << " matched, " << c.total
       << " difference" << (c.total == 1 ? "" : "s") << "\n";
    for (const auto& d : c.deltas) {
      switch (d.kind) {
        case diff::CallDeltaKind::OnlyA: os << "  only in A: " << call_text(*d.a) << "\n"; break;
        case diff::CallDeltaKind::OnlyB: os << "  only in B: " << call_text(*d.b) << "\n"; break;
        default:
          os << "  " << diff::call_delta_name(d.kind) << ": A " << call_text(*d.a) << "\n"
             << "  " << std::string(std::string(diff::call_delta_name(d.kind)).size(), ' ') << "  B " << call_text(*d.b)
             << "\n";
      }
    }
    if (c.total > c.deltas.size()) os << "  ... " << (c.total - c.deltas.size()) << " more (--limit)\n";
  }
  os << (r.identical() ? "identical\n" : "different\n");
}

int run_diff_cmd(const DiffCliOptions& o) {
  if (o.limit == 0) {
    std::cerr << "ttd diff: --limit must be at least 1\n";
    return 2;
  }
  auto a = open_trace_or_report(o.a);
  if (!a) return 2;
  TraceOptions bo = o.a;
  bo.path = o.b.path;
  bo.index_path.clear();
  auto b = open_trace_or_report(bo);
  if (!b) return 2;
  std::signal(SIGINT, [](int) { g_interrupted = 1; });
  diff::DiffOptions d;
  d.compare_calls = !o.no_calls;
  d.any_program = o.any_program;
  d.calls.limit = o.limit;
  d.calls.resync = o.resync;
  d.cancel = [] { return g_interrupted != 0; };
  auto r = diff::diff_runs(a, b, d);
  if (!r) {
    std::cerr << "ttd diff: " << r.error().to_string() << "\n";
    return 2;
  }
  if (o.json)
    std::cout << report_json(*r).dump() << "\n";
  else
    print_report(std::cout, *r, a->path(), b->path());
  std::cout.flush();
  if (!std::cout) {
    std::cerr << "ttd diff: writing to stdout failed\n";
    return 2;
  }
  return r->identical() ? 0 : 1;
}

}  // namespace

void add_diff_command(CLI::App& app, CommandRunner& run) {
  auto o = std::make_shared<DiffCliOptions>();
  auto* sub = app.add_subcommand("diff", "where two runs of one program diverge (control flow), and how their calls differ");
  add_trace_options(*sub, o->a);
  sub->add_option("B", o->b.path, "the second trace")->required();
  sub->add_flag("--json", o->json, "one JSON object");
  sub->add_option("--limit", o->limit, "call differences shown (default 50; all are counted)");
  sub->add_option("--resync", o->resync, "calls looked ahead to re-align the call lists (default 1024)");
  sub->add_flag("--no-calls", o->no_calls, "report the control-flow divergence only");
  sub->add_flag("--any-program", o->any_program, "compare traces that name different programs");
  sub->callback([o, &run] { run = [o] { return run_diff_cmd(*o); }; });
}

}  // namespace ttd::cli
