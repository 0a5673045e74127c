// ttd info TRACE: what a user asks first (program, architecture, steps,
// threads, span, what the trace tells); the format's details and the
// index behind --verbose.
#include <iostream>
#include <optional>
#include <nlohmann/json.hpp>

#include "tools/ttd/commands.h"
#include "tools/ttd/trace_options.h"

namespace ttd::cli {

namespace {
struct InfoOptions {
  TraceOptions trace;
  bool json = false;
  bool verbose = false;
};

const char* yes_no(bool b) { return b ? "yes" : "no"; }

// A trace whose file ends inside its last chunk (a recording killed, a
// full disk): the reader read the whole chunks before it and says where
// (UcirReader::kCutShortProperty).
std::optional<std::string> property(const fmt::TraceInfo& info, std::string_view key) {
  for (const auto& [k, v] : info.properties)
    if (k == key) return v;
  return std::nullopt;
}
std::optional<std::string> cut_short_at(const fmt::TraceInfo& info) { return property(info, "cut short at byte"); }
// How a recording of ttd's ended, from its end record
// (UcirReader::kEndedProperty): "program exited with status 0".
std::optional<std::string> recording_ended(const fmt::TraceInfo& info) { return property(info, "recording ended"); }

int run_info(const InfoOptions& o) {
  auto t = open_trace_or_report(o.trace);
  if (!t) return 1;
  const auto& info = t->info();
  const auto& st = t->stats();
  uint64_t n = t->step_count();
  std::vector<std::string> symbol_files = t->symbolizer().modules();
  nlohmann::json j;
  j["trace"] = t->path();
  j["format"] = info.format;
  j["arch"] = t->arch().name;
  j["os"] = info.os;
  if (!info.exec_path.empty()) j["exec_path"] = info.exec_path;
  j["steps"] = n;
  j["eid_range"] = {0, n};
  j["threads"] = nlohmann::json::array();
  for (const auto& th : t->threads())
    j["threads"].push_back({{"tid", th.tid}, {"pid", th.pid}, {"steps", th.steps}, {"first_eid", th.first_eid}, {"last_eid", th.last_eid}});
  j["reconstructs"] = {{"registers", info.caps.registers},
                       {"memory_values", info.caps.memory_values},
                       {"memory_accesses", info.caps.memory_accesses},
                       {"code_bytes", info.caps.code_bytes}};
  j["code_bytes_from"] = t->code_source();
  j["symbols"] = symbol_files;
  if (!info.caps.note.empty()) j["limitations"] = info.caps.note;
  for (auto& [k, v] : info.properties) j["properties"][k] = v;
  j["index"] = {{"path", st.index_path},   {"state", st.reused ? "reused" : "built now"},
                {"bytes", st.index_bytes}, {"chunks", st.chunks},
                {"keyframes", st.keyframes}, {"unique_pages", st.unique_pages},
                {"chunk_steps", t->chunk_steps()}};
  const auto cut = cut_short_at(info);
  if (cut) j["cut_short_at"] = std::stoull(*cut);
  const auto ended = recording_ended(info);
  if (ended) j["ended"] = *ended;
  if (o.json) {
    std::cout << j.dump() << "\n";
    return 0;
  }
  std::cout << "program:      " << (info.exec_path.empty() ? "(not named by the trace)" : info.exec_path) << "\n"
            << "architecture: " << t->arch().name << (info.os.empty() ? "" : " (" + info.os + ")") << "\n"
            << "steps:        " << n << " (EIDs 0.." << n << ", " << n << " = end of trace)\n"
            << "threads:      " << t->threads().size() << "\n";
  if (cut)
    std::cout << "warning:      trace cut short at byte " << *cut << " (the recording did not finish): " << n
              << " steps readable\n";
  if (ended) std::cout << "ended:        " << *ended << "\n";
  for (const auto& th : t->threads())
    std::cout << "  thread " << th.tid << " (process " << th.pid << "): " << th.steps << " steps, EIDs " << th.first_eid
              << ".." << th.last_eid << "\n";
  // Positions are steps: no format we read gives wall-clock time per step.
  std::cout << "time span:    EID 0 to " << n << " (time is counted in steps)\n";
  std::cout << "known:        code bytes " << yes_no(info.caps.code_bytes) << ", memory reads and writes "
            << yes_no(info.caps.memory_accesses) << ", memory contents " << yes_no(info.caps.memory_values)
            << ", register effects " << yes_no(info.caps.registers) << "\n";
  std::cout << "code bytes:   " << t->code_source() << "\n";
  if (symbol_files.empty()) {
    std::cout << "symbols:      none (give --program ELF or --symbols FILE[@ADDR])\n";
  } else {
    std::cout << "symbols:      " << symbol_files.front() << "\n";
    for (size_t i = 1; i < symbol_files.size(); ++i) std::cout << "              " << symbol_files[i] << "\n";
  }
  if (!info.caps.note.empty()) std::cout << "limitations:  " << info.caps.note << "\n";
  if (!o.verbose) return 0;
  std::cout << "trace:        " << t->path() << "\n"
            << "format:       " << info.format << "\n";
  for (auto& [k, v] : info.properties) std::cout << "  " << k << ": " << v << "\n";
  std::cout << "index:        " << st.index_path << " (" << (st.reused ? "reused" : "built now") << ", "
            << st.index_bytes << " bytes, " << st.chunks << " chunks of " << t->chunk_steps() << " steps, "
            << st.unique_pages << " unique pages)\n";
  return 0;
}
}  // namespace

void add_info_command(CLI::App& app, CommandRunner& run) {
  auto o = std::make_shared<InfoOptions>();
  auto* sub = app.add_subcommand("info", "program, architecture, steps, threads, and what the trace tells");
  add_trace_options(*sub, o->trace);
  sub->add_flag("--json", o->json, "print one JSON object (everything, --verbose's details included)");
  sub->add_flag("-v,--verbose", o->verbose, "also the format's details and the index (path, size, chunks)");
  sub->callback([o, &run] { run = [o] { return run_info(*o); }; });
}

}  // namespace ttd::cli
