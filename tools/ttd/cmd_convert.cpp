// ttd convert IN --to tenet|ucir OUT: any readable trace written in another
// format (Tenet text, which IDA's and Binary Ninja's Tenet plugin loads;
// UCIR, usercorn's format, which `ttd record` writes). The output appears
// only when complete (temporary file, renamed). UCIR output is read back
// and compared with the source at sampled EIDs (convert_verify.h) unless
// --no-verify; a mismatch removes it.
#include <csignal>
#include <iostream>

#include <cstdio>

#include "tools/ttd/commands.h"
#include "tools/ttd/convert_verify.h"
#include "tools/ttd/tenet_text_writer.h"
#include "tools/ttd/trace_options.h"
#include "tools/ttd/ucir_trace_writer.h"
#include "tools/ttd/usage_error.h"

namespace ttd::cli {

namespace {

struct ConvertOptions {
  TraceOptions trace;
  std::string to, output;
  bool no_verify = false;
  bool drop_events = false;
  uint32_t samples = 64;
};

int run_convert_ucir(const ConvertOptions& o, std::shared_ptr<const Trace> t) {
  auto r = write_ucir(t, o.output, UcirConvertOptions{o.drop_events});
  if (!r) {
    std::cerr << "ttd convert: " << r.error().to_string() << "\n";
    return 1;
  }
  std::cerr << "ttd convert: " << r->steps << " steps to " << o.output;
  if (r->events_dropped)
    std::cerr << " (" << r->events_dropped << " event steps left out (--drop-events), their effects kept: output EID k is "
              << "the source's k-th non-event step)";
  if (r->unknowns_dropped)
    std::cerr << " (" << r->unknowns_dropped << " 'became unknown' effects left out: UCIR keeps the earlier value there)";
  std::cerr << "\n";
  if (o.no_verify) return 0;
  auto v = verify_converted(t, o.output, o.samples, r->source_tids, r->eids, r->made_unknown);
  if (!v) {
    std::remove(o.output.c_str());
    std::remove((o.output + ".ttdidx").c_str());  // the index reading it back wrote beside it
    std::cerr << "ttd convert: verification failed, " << o.output << " removed: " << v.error().to_string() << "\n";
    return 1;
  }
  std::cerr << "ttd convert: read back and compared at " << v->eids << " EIDs";
  if (v->eids_mapped) std::cerr << " (" << v->eids_mapped << " with the source EID they map to)";
  std::cerr << ": equal (whole-state digests equal at "
            << v->digests_equal << "; " << v->step_threads_compared << " step threads and " << v->threads_compared
            << " thread register files of " << r->source_tids.size() << " thread(s); " << v->bytes_compared << " memory bytes compared";
  if (v->bytes_only_in_source) std::cerr << ", " << v->bytes_only_in_source << " known only to the source (read values)";
  if (v->bytes_stale_in_output)
    std::cerr << ", " << v->bytes_stale_in_output << " unknown to the source (became unknown) with an earlier value in UCIR";
  if (v->bytes_zero_in_output) std::cerr << ", " << v->bytes_zero_in_output << " mapped but unknown to the source and zero in UCIR";
  if (v->registers_only_in_output)
    std::cerr << ", " << v->registers_only_in_output << " register values unknown to the source and known in UCIR";
  std::cerr << ")\n";
  return 0;
}

int run_convert(const ConvertOptions& o) {
  if (o.to != "tenet" && o.to != "ucir") {
    return usage_error("convert", "--to: expected tenet or ucir, got '" + o.to + "'");
  }
  if (o.samples == 0) {
    return usage_error("convert", "--verify-samples must be at least 1");
  }
  auto t = open_trace_or_report(o.trace);
  if (!t) return 1;
  std::signal(SIGPIPE, SIG_IGN);
  // Over a file size limit a write fails (EFBIG) and the temporary file is
  // removed, instead of the process being killed and leaving it behind.
  std::signal(SIGXFSZ, SIG_IGN);
  if (o.to == "ucir") return run_convert_ucir(o, t);
  auto r = write_tenet(t, o.output, o.drop_events);
  if (!r) {
    std::cerr << "ttd convert: " << r.error().to_string() << "\n";
    return 1;
  }
  std::cerr << "ttd convert: " << r->lines << " lines to " << o.output;
  if (r->reads_without_value) std::cerr << " (" << r->reads_without_value << " reads of unknown bytes left out)";
  if (r->events_dropped)
    std::cerr << " (" << r->events_dropped << " event steps left out (--drop-events), their effects kept: line k is "
              << "the source's k-th non-event step)";
  std::cerr << "\n";
  return 0;
}

}  // namespace

void add_convert_command(CLI::App& app, CommandRunner& run) {
  auto o = std::make_shared<ConvertOptions>();
  auto* sub = app.add_subcommand("convert", "write a trace in another format (tenet, ucir)");
  add_trace_options(*sub, o->trace);
  sub->add_option("--to", o->to, "output format: tenet or ucir")->required();
  sub->add_flag("--drop-events", o->drop_events,
                "leave event steps (thread begin/end, context changes, markers) out, keeping their effects on "
                "the state; output EIDs are then the source's non-event steps");
  sub->add_flag("--no-verify", o->no_verify, "ucir: do not read the output back and compare it with the source");
  sub->add_option("--verify-samples", o->samples, "ucir: EIDs compared when reading the output back (default 64)");
  sub->add_option("OUT", o->output, "output file (written whole or not at all)")->required();
  sub->callback([o, &run] { run = [o] { return run_convert(*o); }; });
}

}  // namespace ttd::cli
