// ttd convert IN --to tenet OUT: any readable trace written in another
// format (Tenet text, which IDA's and Binary Ninja's Tenet plugin loads).
// The output appears only when complete (temporary file, renamed).
#include <csignal>
#include <iostream>

#include "tools/ttd/commands.h"
#include "tools/ttd/tenet_text_writer.h"
#include "tools/ttd/trace_options.h"

namespace ttd::cli {

namespace {

struct ConvertOptions {
  TraceOptions trace;
  std::string to, output;
};

int run_convert(const ConvertOptions& o) {
  if (o.to != "tenet") {
    std::cerr << "ttd convert: --to: expected tenet, got '" << o.to << "'"
              << (o.to == "ucir" ? " (UCIR output is not implemented yet)" : "") << "\n";
    return 2;
  }
  auto t = open_trace_or_report(o.trace);
  if (!t) return 1;
  std::signal(SIGPIPE, SIG_IGN);
  auto r = write_tenet(t, o.output);
  if (!r) {
    std::cerr << "ttd convert: " << r.error().to_string() << "\n";
    return 1;
  }
  std::cerr << "ttd convert: " << r->lines << " lines to " << o.output;
  if (r->reads_without_value) std::cerr << " (" << r->reads_without_value << " reads of unknown bytes left out)";
  std::cerr << "\n";
  return 0;
}

}  // namespace

void add_convert_command(CLI::App& app, CommandRunner& run) {
  auto o = std::make_shared<ConvertOptions>();
  auto* sub = app.add_subcommand("convert", "write a trace in another format (tenet)");
  add_trace_options(*sub, o->trace);
  sub->add_option("--to", o->to, "output format: tenet")->required();
  sub->add_option("OUT", o->output, "output file (written whole or not at all)")->required();
  sub->callback([o, &run] { run = [o] { return run_convert(*o); }; });
}

}  // namespace ttd::cli
