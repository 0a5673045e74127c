// ttd: replay engine and time-travel debugger backend for execution traces.
#include <malloc.h>

#include <CLI/CLI.hpp>
#include <cstring>
#include <iostream>

#include "tools/ttd/commands.h"

namespace ttd::cli {
void add_convert_command(CLI::App& app, CommandRunner& run);  // cmd_convert.cpp
}

int main(int argc, char** argv) {
  // Copy-on-write pages (4.6 KiB each) are allocated and freed by the
  // hundred thousand while indexing; glibc's default of returning freed
  // heap to the kernel made every new page a page fault.
  mallopt(M_TRIM_THRESHOLD, 512 << 20);
  mallopt(M_MMAP_THRESHOLD, 1 << 20);
  CLI::App app{"ttd: time-travel debugging of execution traces (UCIR, XRay, REVEN, Tenet, ...)"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "ttd 0.1.0");
  ttd::cli::CommandRunner run;
  using AddCommand = void (*)(CLI::App&, ttd::cli::CommandRunner&);
  struct Command {
    const char* name;
    AddCommand add;
  };
  static constexpr Command kCommands[] = {
      {"info", ttd::cli::add_info_command},
      {"index", ttd::cli::add_index_command},
      {"query", ttd::cli::add_query_command},
      {"steps", ttd::cli::add_steps_command},
      {"history", ttd::cli::add_history_command},
      {"executions", ttd::cli::add_executions_command},
      {"calls", ttd::cli::add_calls_command},
      {"search", ttd::cli::add_search_command},
      {"export", ttd::cli::add_export_command},
      {"diff", ttd::cli::add_diff_command},
      {"convert", ttd::cli::add_convert_command},
      {"origin", ttd::cli::add_origin_command},
#ifdef TTD_HAS_RECORD
      {"record", ttd::cli::add_record_command},
#endif
#ifdef TTD_HAS_SERVE
      {"serve", ttd::cli::add_serve_command},
#endif
#ifdef TTD_HAS_DAP
      {"dap", ttd::cli::add_dap_command},
#endif
  };
  // A command named first gets only its own parser: setting up all fifteen
  // (a few hundred options and validators) was a tenth of a one-shot
  // query's CPU (docs/performance.md, "One-shot query start-up"). Anything
  // else (--help, --version, a mistyped name) gets them all, to list them.
  const Command* chosen = nullptr;
  if (argc > 1)
    for (const Command& c : kCommands)
      if (std::strcmp(argv[1], c.name) == 0) chosen = &c;
  if (chosen)
    chosen->add(app, run);
  else
    for (const Command& c : kCommands) c.add(app, run);
  // CLI11 alone answers "A subcommand is required" to a mistyped command;
  // name it and list the real ones instead.
  auto subs = app.get_subcommands({});
  auto known = [&](const std::string& n) {
    for (const CLI::App* sub : subs)
      if (sub->check_name(n)) return true;
    return false;
  };
  if (argc == 1 || (argv[1][0] != '-' && !known(argv[1]))) {
    if (argc == 1)
      std::cerr << "ttd: a command is required; the commands are:";
    else
      std::cerr << "ttd: unknown command '" << argv[1] << "'; the commands are:";
    for (const CLI::App* sub : subs) std::cerr << ' ' << sub->get_name();
    std::cerr << "\n(ttd COMMAND --help for one of them)\n";
    return 2;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  return run ? run() : 2;
}
