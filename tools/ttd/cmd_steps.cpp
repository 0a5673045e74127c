// ttd steps TRACE [--from EID] [--to EID]: the steps with their effects.
#include <iostream>
#include <nlohmann/json.hpp>

#include "tools/ttd/commands.h"
#include "tools/ttd/trace_options.h"
#include "tools/ttd/value_format.h"

namespace ttd::cli {

namespace {
struct StepsOptions {
  TraceOptions trace;
  std::string from = "0", to;
  bool json = false;
};

nlohmann::ordered_json attr_json(const fmt::AttrValue& v) {
  if (auto* u = std::get_if<uint64_t>(&v)) return *u;
  if (auto* i = std::get_if<int64_t>(&v)) return *i;
  if (auto* s = std::get_if<std::string>(&v)) return *s;
  return std::get<std::vector<uint64_t>>(v);
}

int run_steps(const StepsOptions& o) {
  uint64_t from = 0, to = ~0ull;
  if (!parse_u64(o.from, from)) {
    std::cerr << "ttd: --from: expected an EID, got '" << o.from << "'\n";
    return 2;
  }
  if (!o.to.empty() && !parse_u64(o.to, to)) {
    std::cerr << "ttd: --to: expected an EID, got '" << o.to << "'\n";
    return 2;
  }
  if (to < from) {
    std::cerr << "ttd: --to " << to << " is before --from " << from << "\n";
    return 2;
  }
  auto t = open_trace_or_report(o.trace);
  if (!t) return 1;
  const ArchDesc& arch = t->arch();
  auto s = t->for_each_step(from, to, [&](const StepRecord& r) {
    nlohmann::ordered_json j;
    j["eid"] = r.eid;
    j["thread"] = r.info.tid;
    j["kind"] = std::string(fmt::step_kind_name(r.info.kind));
    j["pc"] = hex_u64(r.info.pc);
    std::optional<PcSymbol> sym = t->symbolizer().at(r.info.pc);
    if (sym && !sym->function.empty()) j["sym"] = sym->sym();
    if (sym && !sym->file.empty()) j["src"] = sym->src();
    j["size"] = r.info.size;
    for (const auto& [k, v] : r.attrs) j[k] = attr_json(v);
    if (!r.regs.empty()) {
      j["regs"] = nlohmann::ordered_json::object();
      for (const auto& w : r.regs) {
        RegisterFile rf(arch);
        rf.set_bytes(w.reg, w.value);
        j["regs"][arch.regs[w.reg].name] = *register_hex(rf, w.reg);
      }
    }
    if (!r.mem.empty()) {
      j["mem"] = nlohmann::ordered_json::array();
      for (const auto& m : r.mem) {
        nlohmann::ordered_json e{{"op", m.write ? "w" : "r"}, {"addr", hex_u64(m.addr)}, {"size", m.size}};
        if (!m.value.empty()) e["hex"] = bytes_hex(m.value.data(), m.value.size());
        j["mem"].push_back(e);
      }
    }
    if (o.json) {
      std::cout << j.dump() << "\n";
    } else {
      std::cout << r.eid << "  thread " << r.info.tid << "  " << fmt::step_kind_name(r.info.kind) << "  pc " << hex_u64(r.info.pc);
      if (sym) std::cout << " " << sym->text();
      for (const auto& [k, v] : r.attrs) std::cout << "  " << k << "=" << attr_json(v).dump();
      if (j.contains("regs")) std::cout << "  regs " << j["regs"].dump();
      if (j.contains("mem")) std::cout << "  mem " << j["mem"].dump();
      std::cout << "\n";
    }
    return bool(std::cout);
  });
  if (!s) {
    std::cerr << "ttd: " << s.error().to_string() << "\n";
    return 1;
  }
  return 0;
}
}  // namespace

void add_steps_command(CLI::App& app, CommandRunner& run) {
  auto o = std::make_shared<StepsOptions>();
  auto* sub = app.add_subcommand("steps", "list steps [--from, --to) with kind, pc, effects and format details");
  add_trace_options(*sub, o->trace);
  sub->add_option("--from", o->from, "first EID (default 0)");
  sub->add_option("--to", o->to, "end EID, exclusive (default: end of trace)");
  sub->add_flag("--json", o->json, "JSON Lines: one object per step");
  sub->callback([o, &run] { run = [o] { return run_steps(*o); }; });
}

}  // namespace ttd::cli
