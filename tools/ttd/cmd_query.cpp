// ttd query TRACE --at EID: registers and memory at one position.
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "engine/cursor.h"
#include "tools/ttd/commands.h"
#include "tools/ttd/trace_options.h"
#include "tools/ttd/value_format.h"

namespace ttd::cli {

namespace {
struct QueryOptions {
  TraceOptions trace;
  std::string at;
  std::vector<std::string> regs;
  std::vector<std::string> mems;
  std::string thread;
  bool json = false;
  bool digest = false;
};

struct MemRange {
  uint64_t addr = 0, len = 0;
};

int run_query(const QueryOptions& o) {
  uint64_t eid = 0;
  if (!parse_u64(o.at, eid)) {
    std::cerr << "ttd: --at: expected an EID (decimal or 0x-hex), got '" << o.at << "'\n";
    return 2;
  }
  std::vector<MemRange> ranges;
  for (const auto& m : o.mems) {
    auto colon = m.find(':');
    MemRange r;
    if (colon == std::string::npos || !parse_u64(m.substr(0, colon), r.addr) || !parse_u64(m.substr(colon + 1), r.len) ||
        r.len == 0 || r.len > (1u << 20) || r.addr + r.len < r.addr) {
      std::cerr << "ttd: --mem: expected ADDR:LEN with 0 < LEN <= 1048576 (e.g. 0x7ffc1000:16), got '" << m << "'\n";
      return 2;
    }
    ranges.push_back(r);
  }
  auto t = open_trace_or_report(o.trace);
  if (!t) return 1;
  const ArchDesc& arch = t->arch();
  std::vector<uint16_t> regs;
  for (const auto& name : o.regs) {
    auto r = arch.find(name);
    if (!r) {
      std::cerr << "ttd: --reg: no register '" << name << "' on " << arch.name << "\n";
      return 2;
    }
    regs.push_back(*r);
  }
  if (o.regs.empty())
    for (uint16_t i = 0; i < arch.regs.size(); ++i) regs.push_back(i);

  // Positioned straight at eid: no seek to 0 first (one-shot start-up).
  auto at = Cursor::at(t, eid);
  if (!at) {
    std::cerr << "ttd: --at: " << at.error().to_string() << "\n";
    return 2;
  }
  Cursor& c = *at;
  uint64_t tid = c.current_tid();
  if (!o.thread.empty() && !parse_u64(o.thread, tid)) {
    std::cerr << "ttd: --thread: expected a thread id, got '" << o.thread << "'\n";
    return 2;
  }
  const ThreadState* th = c.state().find_thread(tid);
  if (!th && !o.thread.empty()) {
    std::cerr << "ttd: --thread: no thread " << tid << " at EID " << eid << "\n";
    return 2;
  }
  const ProcessState* proc = th ? c.state().find_process(th->pid) : nullptr;
  if (!proc && !c.state().processes().empty()) proc = &c.state().processes().begin()->second;

  nlohmann::ordered_json j;
  j["eid"] = eid;
  j["thread"] = tid;
  auto pc = th ? register_hex(th->regs, arch.pc_index) : std::nullopt;
  j["pc"] = pc ? nlohmann::ordered_json(*pc) : nlohmann::ordered_json(nullptr);
  std::optional<uint64_t> pc_value = th ? th->regs.get_u64(arch.pc_index) : std::nullopt;
  std::optional<PcSymbol> sym = pc_value ? t->symbolizer().at(*pc_value) : std::nullopt;
  if (sym && !sym->function.empty()) j["sym"] = sym->sym();
  if (sym && !sym->file.empty()) j["src"] = sym->src();
  j["regs"] = nlohmann::ordered_json::object();
  for (uint16_t r : regs) {
    auto v = th ? register_hex(th->regs, r) : std::nullopt;
    j["regs"][arch.regs[r].name] = v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
  }
  j["mem"] = nlohmann::ordered_json::array();
  for (const auto& r : ranges)
    j["mem"].push_back({{"addr", hex_u64(r.addr)}, {"len", r.len}, {"hex", memory_hex(proc, r.addr, r.len)}});
  if (o.digest) {
    char d[24];
    std::snprintf(d, sizeof d, "%016llx", (unsigned long long)c.state().digest());
    j["digest"] = d;
  }
  // A page the index could not give reads as unknown above: an error, not
  // "??" bytes or a digest of what could be read.
  if (auto fault = c.memory_fault()) {
    std::cerr << "ttd: " << fault->to_string() << "\n";
    return 1;
  }
  if (o.json) {
    std::cout << j.dump() << "\n";
    return 0;
  }
  std::cout << "EID " << eid << "  thread " << tid << "  pc " << (pc ? *pc : "unknown") << (sym ? " " + sym->text() : "") << "\n";
  for (uint16_t r : regs) {
    auto v = th ? register_hex(th->regs, r) : std::nullopt;
    std::printf("  %-10s %s\n", arch.regs[r].name.c_str(), v ? v->c_str() : "<unknown>");
  }
  for (const auto& r : ranges) std::cout << "  mem " << hex_u64(r.addr) << "+" << r.len << ": " << memory_hex(proc, r.addr, r.len) << "\n";
  if (o.digest) std::cout << "  digest " << j["digest"].get<std::string>() << "\n";
  return 0;
}
}  // namespace

void add_query_command(CLI::App& app, CommandRunner& run) {
  auto o = std::make_shared<QueryOptions>();
  auto* sub = app.add_subcommand("query", "registers and memory at an EID (the state before that step runs)");
  add_trace_options(*sub, o->trace);
  sub->add_option("--at", o->at, "EID to query (0 .. step count)")->required();
  sub->add_option("--reg", o->regs, "register to show (gdb's name; repeatable; default: all)");
  sub->add_option("--mem", o->mems, "memory range ADDR:LEN to show (repeatable)");
  sub->add_option("--thread", o->thread, "thread to show (default: the thread of the step at EID)");
  sub->add_flag("--json", o->json, "print one JSON object");
  sub->add_flag("--digest", o->digest, "include an xxh3 digest of the whole machine state");
  sub->callback([o, &run] { run = [o] { return run_query(*o); }; });
}

}  // namespace ttd::cli
