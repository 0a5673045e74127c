// The environment `ttd record` gives the program: the recorder's own (or
// none, --clean-env) with each --env NAME=VALUE applied as env(1) and
// setenv(3) apply it: an inherited NAME is replaced where it stands, a new
// one goes at the end. Before, a setting was appended after the inherited
// one and getenv() found the inherited value first.
#pragma once
#include <string>
#include <vector>

#include "state/error.h"

namespace ttd::rec {

// Each setting must be NAME=VALUE with a non-empty NAME without '=';
// otherwise an error naming the setting ("--env" is the where).
Result<std::vector<std::string>> environment_with(std::vector<std::string> base,
                                                  const std::vector<std::string>& settings);

}  // namespace ttd::rec
