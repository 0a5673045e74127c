// ttd export TRACE --what steps|mem|regs|calls|syscalls --to jsonl|csv|sqlite
//            [--from EID] [--to EID] [-o FILE]
// The trace as rows for other tools (schema: docs/export.md). `--to` is
// both the output format and the window's end, as the issue spells it: a
// format name is the format, a number the end EID (`--as` and
// `--until` say the same unambiguously).
#include <csignal>
#include <iostream>

#include "engine/export/trace_export.h"
#include "tools/ttd/commands.h"
#include "tools/ttd/trace_options.h"
#include "tools/ttd/usage_error.h"

namespace ttd::cli {

namespace {

struct ExportOptions {
  TraceOptions trace;
  std::string what = "steps", format, from, until, output;
  std::vector<std::string> to;
};

int run_export(const ExportOptions& o) {
  exporting::ExportRequest req;
  if (!exporting::parse_export_what(o.what, req.what))
    return usage_error("export", "--what: expected steps, mem, regs, calls or syscalls, got '" + o.what + "'");
  exporting::OutputFormat f = exporting::OutputFormat::Jsonl;
  std::string format = o.format, until = o.until;
  for (const auto& v : o.to) {
    exporting::OutputFormat g;
    uint64_t n;
    if (exporting::parse_output_format(v, g)) {
      if (!format.empty() && format != v) return usage_error("export", "two output formats given: '" + format + "' and '" + v + "'");
      format = v;
    } else if (parse_u64(v, n)) {
      if (!until.empty() && until != v) return usage_error("export", "two end EIDs given: '" + until + "' and '" + v + "'");
      until = v;
    } else {
      return usage_error("export", "--to: expected jsonl, csv, sqlite or an end EID, got '" + v + "'");
    }
  }
  if (!format.empty() && !exporting::parse_output_format(format, f))
    return usage_error("export", "--as: expected jsonl, csv or sqlite, got '" + format + "'");
  uint64_t n = 0;
  if (!o.from.empty()) {
    if (!parse_u64(o.from, n)) return usage_error("export", "--from: expected an EID, got '" + o.from + "'");
    req.from = n;
  }
  if (!until.empty()) {
    if (!parse_u64(until, n)) return usage_error("export", "--until: expected an EID, got '" + until + "'");
    req.to = n;
  }
  if (f == exporting::OutputFormat::Sqlite && (o.output.empty() || o.output == "-"))
    return usage_error("export", "-o: SQLite output needs a file (-o FILE), not stdout");
  auto t = open_trace_or_report(o.trace);
  if (!t) return 1;
  // A closed pipe must be a write error we report, not a silent death.
  std::signal(SIGPIPE, SIG_IGN);
  auto w = exporting::make_row_writer(f, o.output);
  if (!w) {
    std::cerr << "ttd export: " << w.error().to_string() << "\n";
    return 1;
  }
  auto r = exporting::export_trace(t, req, **w);
  if (!r) {
    std::cerr << "ttd export: " << r.error().to_string() << "\n";
    return 1;
  }
  if (!r->warning.empty()) std::cerr << "ttd export: warning: incomplete: " << r->warning << "\n";
  if (!o.output.empty() && o.output != "-")
    std::cerr << "ttd export: " << r->rows << " rows to " << o.output << "\n";
  return 0;
}

}  // namespace

void add_export_command(CLI::App& app, CommandRunner& run) {
  auto o = std::make_shared<ExportOptions>();
  auto* sub = app.add_subcommand("export", "the trace as rows (JSON Lines, CSV, SQLite): steps, mem, regs, calls, syscalls");
  add_trace_options(*sub, o->trace);
  sub->add_option("--what", o->what, "steps, mem, regs, calls or syscalls (default steps)");
  sub->add_option("--to", o->to, "output format jsonl|csv|sqlite, or the end EID (exclusive); may be given twice")
      ->expected(1)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  sub->add_option("--as", o->format, "output format: jsonl (default), csv or sqlite (the same as --to FORMAT)");
  sub->add_option("--from", o->from, "first EID (default 0)");
  sub->add_option("--until", o->until, "end EID, exclusive (default: end of trace)");
  sub->add_option("-o,--output", o->output, "output file (default stdout; required for sqlite); written whole or not at all");
  sub->callback([o, &run] { run = [o] { return run_export(*o); }; });
}

}  // namespace ttd::cli
