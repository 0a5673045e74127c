// Which file `ttd record -- NAME ...` runs: the lookup execvp(3) and the
// shell do, so `ttd record -- sort FILE` records /usr/bin/sort as
// `sort FILE` would run it. Knows nothing of ELF or Unicorn.
#pragma once
#include <string>
#include <vector>

#include "state/error.h"

namespace ttd::rec {

// A NAME containing a slash is the path itself (returned unchanged, even if
// it does not exist: opening it reports that). Otherwise each directory of
// the PATH value in turn ("" or an empty element: the current directory,
// as execvp; PATH unset: "/bin:/usr/bin", glibc's default), and the first
// regular file there with execute permission is the answer, as "DIR/NAME".
// None: an error naming NAME and the PATH searched; a file of that name
// that is not executable, or one in the current directory that PATH does
// not search, is said in the message.
Result<std::string> find_program(const std::string& name, const std::string* path_value);

// The value of PATH in an environment of "NAME=value" strings (the first
// PATH=, as getenv finds it), or nullptr.
const std::string* path_in_environment(const std::vector<std::string>& env, std::string& storage);

}  // namespace ttd::rec
