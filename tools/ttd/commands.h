// Subcommands of the `ttd` executable. Each cmd_<name>.cpp adds its
// subcommand to the app; when the user picks it, the parse callback stores
// the function that runs it into `run`, which returns the exit code
// (0 only on success).
#pragma once
#include <CLI/CLI.hpp>
#include <functional>

namespace ttd::cli {

using CommandRunner = std::function<int()>;

void add_info_command(CLI::App& app, CommandRunner& run);
void add_index_command(CLI::App& app, CommandRunner& run);
void add_query_command(CLI::App& app, CommandRunner& run);
void add_steps_command(CLI::App& app, CommandRunner& run);
void add_record_command(CLI::App& app, CommandRunner& run);
void add_serve_command(CLI::App& app, CommandRunner& run);
void add_dap_command(CLI::App& app, CommandRunner& run);
void add_history_command(CLI::App& app, CommandRunner& run);
void add_executions_command(CLI::App& app, CommandRunner& run);
void add_calls_command(CLI::App& app, CommandRunner& run);
void add_search_command(CLI::App& app, CommandRunner& run);
void add_export_command(CLI::App& app, CommandRunner& run);
void add_diff_command(CLI::App& app, CommandRunner& run);
void add_origin_command(CLI::App& app, CommandRunner& run);

}  // namespace ttd::cli
