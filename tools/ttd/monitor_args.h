// The words of a monitor command line: positional arguments and --options,
// checked against what the command accepts, so a typo is an error that
// names the word instead of an option silently ignored.
#pragma once
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "state/error.h"

namespace ttd::cli {

struct MonitorArgs {
  std::vector<std::string> positional;
  std::map<std::string, std::string> options;  // "--limit" -> "5"
  std::set<std::string> flags;                 // "--backward"

  bool has(const std::string& name) const { return options.count(name) != 0; }
  std::string option(const std::string& name) const;  // "" when absent
  bool flag(const std::string& name) const { return flags.count(name) != 0; }
};

// What a command accepts: options that take a value, flags that do not,
// and at most `max_positional` positional words.
struct MonitorSyntax {
  std::set<std::string> options, flags;
  size_t max_positional = 0;
};

// Splits on blanks; "--name value" and "--name=value" both work. Errors
// name the command and the offending word.
Result<MonitorArgs> parse_monitor_args(std::string_view text, const MonitorSyntax& syntax, const std::string& command);

}  // namespace ttd::cli
