// What execve/execveat of the recorded process would run, decided as
// Linux decides it before the point of no return (fs/exec.c,
// fs/binfmt_script.c): the file resolved against the guest's directory,
// a regular file with execute permission, an ELF the recorder can load
// (its program interpreter present) or a `#!` script, whose interpreter
// runs with the script's path as an argument (up to 4 levels, ELOOP
// beyond, as Linux's BINPRM_MAX_RECURSION). A failure is the -errno the
// guest's call returns; the program then goes on (docs/recording.md,
// "execve and --follow-fork").
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "state/error.h"

namespace ttd::rec {

struct ExecTarget {
  std::string program;            // host path of the ELF to load (absolute, symbolic links kept)
  std::string exe;                // its real path: /proc/self/exe of the new image
  std::string requested;          // the path the guest gave (what `ttd record` reports)
  std::vector<std::string> argv;  // after `#!` rewriting
  std::vector<std::string> envp;
};

struct ExecRequest {
  int dirfd = -1;         // host directory for a relative path: the guest's cwd or execveat's dirfd
  int empty_path_fd = -1; // execveat(AT_EMPTY_PATH): the host descriptor of the file itself
  std::string path;       // as the guest gave it
  std::vector<std::string> argv, envp;
  std::string sysroot;    // the kernel's sysroot, where a foreign program's interpreter may be
};

// 0 and `out` filled, or -errno (ENOENT, EACCES, ENOEXEC, ELOOP, ENOTDIR ...).
int64_t resolve_exec(const ExecRequest& req, ExecTarget& out);

// For the program `ttd record` starts: what runs when `path` is a `#!`
// script (resolved as resolve_exec does), nothing when it is not one (the
// loader then reports what else is wrong with it), or an error naming the
// script and what failed.
Result<std::optional<ExecTarget>> script_interpreter(const std::string& path, const std::vector<std::string>& argv,
                                                     const std::vector<std::string>& env,
                                                     const std::string& sysroot);

}  // namespace ttd::rec
