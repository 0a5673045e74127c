// How a ttd subcommand reports wrong arguments: "ttd <command>: <what>" on
// stderr and exit status 2, the convention of every subcommand.
#pragma once
#include <iostream>
#include <string>

namespace ttd::cli {

inline int usage_error(const char* command, const std::string& msg) {
  std::cerr << "ttd " << command << ": " << msg << "\n";
  return 2;
}

}  // namespace ttd::cli
