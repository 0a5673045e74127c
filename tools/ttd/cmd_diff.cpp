// ttd diff A B [--json] [--limit N] [--no-calls] [--any-program]
// [--no-arguments] [--no-origins]: where two runs of one program diverge
// (by control flow, not by EID), where the values that decided the branch
// came from (origin), and how their calls differ (presence, arguments,
// return values). Exit status as diff(1): 0 identical, 1 different, 2 trouble.
#include <csignal>
#include <iostream>
#include <nlohmann/json.hpp>

#include "engine/diff/run_diff.h"
#include "engine/query/origin_render.h"
#include "tools/ttd/commands.h"
#include "tools/ttd/trace_options.h"
#include "tools/ttd/usage_error.h"

namespace ttd::cli {

namespace {

volatile std::sig_atomic_t g_interrupted = 0;

struct DiffCliOptions {
  TraceOptions a, b;
  bool json = false, no_calls = false, any_program = false, no_arguments = false, no_origins = false;
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

// Function names for the calls of instruction traces (XRay calls carry
// theirs): the program's symbols, when the trace's program has them.
struct Names {
  query::PcSymbolizer sym;
  std::string of(const query::Call& c) const {
    if (!c.symbol.empty()) return c.symbol;
    if (!sym || !c.function || c.call_site == 0) return "";
    auto p = sym(*c.function);
    return p && p->offset == 0 ? p->function : "";
  }
};

std::string opt_hex(const std::optional<uint64_t>& v) { return v ? hex_u64(*v) : std::string("??"); }

J arguments_json(const Trace& t, const std::vector<diff::ArgumentDelta>& args) {
  J out = J::array();
  for (const auto& d : args)
    out.push_back({{"index", d.index}, {"register", t.arch().regs[d.reg].name}, {"a", d.a ? J(hex_u64(*d.a)) : J(nullptr)},
                   {"b", d.b ? J(hex_u64(*d.b)) : J(nullptr)}});
  return out;
}

J origins_json(const Trace& a, const Trace& b, const std::vector<diff::InputOrigin>& origins, const Names& n) {
  J out = J::array();
  auto graph = [&](const Trace& t, const std::optional<query::OriginGraph>& g, const std::string& err) {
    if (!g) return J{{"error", err}};
    return J::parse(query::origin_to_json(t, *g, n.sym));
  };
  for (const auto& o : origins)
    out.push_back({{"what", o.what}, {"eid_a", o.eid_a}, {"eid_b", o.eid_b}, {"a", graph(a, o.a, o.error_a)},
                   {"b", graph(b, o.b, o.error_b)}});
  return out;
}

J call_json(const std::optional<query::Call>& c, const Names& n) {
  if (!c) return nullptr;
  J j{{"thread", c->tid}, {"depth", c->depth}};
  j["function"] = c->function ? J(hex_u64(*c->function)) : J(nullptr);
  j["call_site"] = hex_u64(c->call_site);
  j["entry_eid"] = c->entry_eid;
  j["exit_eid"] = c->exit_eid ? J(*c->exit_eid) : J(nullptr);
  j["return_value"] = c->return_value ? J(hex_u64(*c->return_value)) : J(nullptr);
  if (!c->args.empty()) j["args"] = c->args;
  if (auto name = n.of(*c); !name.empty()) j["symbol"] = name;
  return j;
}

J report_json(const diff::DiffReport& r, const Trace& ta, const Trace& tb, const Names& n) {
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
      v["origins"] = origins_json(ta, tb, r.origins, n);
    }
    j["first_divergence"] = v;
  }
  if (r.calls) {
    J c{{"calls_a", r.calls->calls_a}, {"calls_b", r.calls->calls_b}, {"matched", r.calls->matched},
        {"differences", r.calls->total}};
    c["shown"] = J::array();
    for (const auto& d : r.calls->deltas) {
      J e{{"kind", diff::call_delta_name(d.kind)}, {"a", call_json(d.a, n)}, {"b", call_json(d.b, n)}};
      if (d.a && d.b) e["arguments"] = arguments_json(ta, d.arguments);
      c["shown"].push_back(e);
    }
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

std::string call_text(const query::Call& c, const Names& n) {
  std::string s = (c.function ? hex_u64(*c.function) : std::string("?")) + " called from " + hex_u64(c.call_site) +
                  " at EID " + std::to_string(c.entry_eid) + " (depth " + std::to_string(c.depth) + ")";
  if (auto name = n.of(c); !name.empty()) s = name + " " + s;
  s += c.return_value ? ", returned " + hex_u64(*c.return_value) : std::string(", return value unknown");
  return s;
}

void print_origins(std::ostream& os, const Trace& a, const Trace& b, const std::vector<diff::InputOrigin>& origins,
                   const Names& n) {
  auto indent = [](const std::string& text) {
    std::string out, line;
    for (char ch : text) {
      line.push_back(ch);
      if (ch == '\n') out += "      " + line, line.clear();
    }
    if (!line.empty()) out += "      " + line + "\n";
    return out;
  };
  for (const auto& o : origins) {
    os << "  where " << o.what << " came from (A, EID " << o.eid_a << "):\n"
       << (o.a ? indent(query::origin_to_text(a, *o.a, n.sym)) : "      " + o.error_a + "\n");
    os << "  where " << o.what << " came from (B, EID " << o.eid_b << "):\n"
       << (o.b ? indent(query::origin_to_text(b, *o.b, n.sym)) : "      " + o.error_b + "\n");
  }
}

void print_report(std::ostream& os, const diff::DiffReport& r, const Trace& ta, const Trace& tb, const Names& n) {
  const std::string &pa = ta.path(), &pb = tb.path();
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
      print_origins(os, ta, tb, r.origins, n);
    }
  }
  if (r.calls) {
    const auto& c = *r.calls;
    os << "calls: " << c.calls_a << " in A, " << c.calls_b << " in B, " << c.matched << " matched, " << c.total
       << " difference" << (c.total == 1 ? "" : "s") << "\n";
    for (const auto& d : c.deltas) {
      switch (d.kind) {
        case diff::CallDeltaKind::OnlyA: os << "  only in A: " << call_text(*d.a, n) << "\n"; break;
        case diff::CallDeltaKind::OnlyB: os << "  only in B: " << call_text(*d.b, n) << "\n"; break;
        default: {
          const std::string pad(std::string(diff::call_delta_name(d.kind)).size(), ' ');
          os << "  " << diff::call_delta_name(d.kind) << ": A " << call_text(*d.a, n) << "\n"
             << "  " << pad << "  B " << call_text(*d.b, n) << "\n";
          for (const auto& g : d.arguments)
            os << "  " << pad << "  argument " << (g.index + 1) << " (" << ta.arch().regs[g.reg].name << "): A "
               << opt_hex(g.a) << "  B " << opt_hex(g.b) << "\n";
        }
      }
    }
    if (c.total > c.deltas.size()) os << "  ... " << (c.total - c.deltas.size()) << " more (--limit)\n";
  }
  os << (r.identical() ? "identical\n" : "different\n");
}

int run_diff_cmd(const DiffCliOptions& o) {
  if (o.limit == 0) {
    return usage_error("diff", "--limit must be at least 1");
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
  d.calls.compare_arguments = !o.no_arguments;
  d.origins = !o.no_origins;
  d.cancel = [] { return g_interrupted != 0; };
  auto r = diff::diff_runs(a, b, d);
  if (!r) {
    std::cerr << "ttd diff: " << r.error().to_string() << "\n";
    return 2;
  }
  Names names;
  if (auto sym = query::program_symbolizer(*a)) names.sym = std::move(*sym);
  if (o.json)
    std::cout << report_json(*r, *a, *b, names).dump() << "\n";
  else
    print_report(std::cout, *r, *a, *b, names);
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
  sub->add_flag("--no-arguments", o->no_arguments, "do not compare the argument registers of calls (instruction traces)");
  sub->add_flag("--no-origins", o->no_origins, "do not trace where the branch's differing inputs came from");
  sub->callback([o, &run] { run = [o] { return run_diff_cmd(*o); }; });
}

}  // namespace ttd::cli
