#include "tools/recorder/guest_execve.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <filesystem>

#include "tools/recorder/elf_image.h"
#include "tools/recorder/guest_proc_files.h"

namespace ttd::rec {

namespace {

constexpr int kMaxScriptDepth = 4;             // Linux's BINPRM_MAX_RECURSION
constexpr size_t kShebangLine = 256;           // BINPRM_BUF_SIZE: Linux reads no further
constexpr const char* kAarch64Sysroot = "/usr/aarch64-linux-gnu";

// Absolute host path for `path` relative to host directory `dirfd`.
std::string host_path(int dirfd, const std::string& path) {
  if (!path.empty() && path[0] == '/') return path;
  const std::string dir = dirfd >= 0 ? host_fd_target(dirfd) : std::filesystem::current_path().string();
  return (std::filesystem::path(dir) / path).lexically_normal().string();
}

// Regular, executable, readable: what execve checks of the file itself.
int64_t check_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) < 0) return -errno;
  if (!S_ISREG(st.st_mode)) return -EACCES;
  if (::access(path.c_str(), X_OK) < 0) return -errno;
  if (::access(path.c_str(), R_OK) < 0) return -errno;
  return 0;
}

bool interpreter_present(const ElfImage& elf, const std::string& sysroot) {
  if (elf.interp.empty()) return true;
  for (const std::string& root : {sysroot, std::string(), std::string(kAarch64Sysroot)})
    if (::access((root + elf.interp).c_str(), R_OK) == 0) return true;
  return false;
}

// A `#!` line: interpreter and its one optional argument (Linux passes the
// rest of the line, trimmed, as a single argument). False: not a script.
bool parse_shebang(const std::string& path, std::string& interp, std::string& arg, int64_t& err) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    err = -errno;
    return false;
  }
  char buf[kShebangLine];
  const ssize_t n = ::read(fd, buf, sizeof buf);
  ::close(fd);
  if (n < 2 || buf[0] != '#' || buf[1] != '!') return false;
  std::string line(buf + 2, size_t(n - 2));
  if (const size_t nl = line.find('\n'); nl != std::string::npos) line.resize(nl);
  auto blank = [](char c) { return c == ' ' || c == '\t'; };
  size_t i = 0;
  while (i < line.size() && blank(line[i])) ++i;
  size_t j = i;
  while (j < line.size() && !blank(line[j])) ++j;
  interp = line.substr(i, j - i);
  while (j < line.size() && blank(line[j])) ++j;
  size_t e = line.size();
  while (e > j && blank(line[e - 1])) --e;
  arg = line.substr(j, e - j);
  if (interp.empty()) err = -ENOEXEC;
  return true;
}

}  // namespace

Result<std::optional<ExecTarget>> script_interpreter(const std::string& path, const std::vector<std::string>& argv,
                                                     const std::vector<std::string>& env,
                                                     const std::string& sysroot) {
  std::string interp, arg;
  int64_t err = 0;
  if (!parse_shebang(path, interp, arg, err)) return std::optional<ExecTarget>();
  ExecRequest req;
  req.path = path;
  req.argv = argv;
  req.envp = env;
  req.sysroot = sysroot;
  ExecTarget t;
  if (int64_t e = resolve_exec(req, t); e < 0) {
    std::string why = std::strerror(int(-e));
    if (e == -ENOEXEC) why = "its interpreter '" + interp + "' is not a program the recorder can run";
    else if (e == -ENOENT) why = "its interpreter '" + interp + "' (or that program's loader) does not exist";
    return make_error(path, "cannot run this #! script: " + why);
  }
  return std::optional<ExecTarget>(std::move(t));
}

int64_t resolve_exec(const ExecRequest& req, ExecTarget& out) {
  if (req.path.empty() && req.empty_path_fd < 0) return -ENOENT;
  std::string given = req.path;
  std::string path = req.empty_path_fd >= 0 ? host_fd_target(req.empty_path_fd) : host_path(req.dirfd, req.path);
  std::vector<std::string> argv = req.argv;
  for (int depth = 0;; ++depth) {
    if (int64_t e = check_file(path); e < 0) return e;
    std::string interp, arg;
    int64_t err = 0;
    if (parse_shebang(path, interp, arg, err)) {
      if (err < 0) return err;
      if (depth >= kMaxScriptDepth) return -ELOOP;
      // Linux: argv[0] is replaced by the interpreter, its argument and
      // the script's path as execve was given it.
      std::vector<std::string> next{interp};
      if (!arg.empty()) next.push_back(arg);
      next.push_back(given.empty() ? path : given);
      next.insert(next.end(), argv.empty() ? argv.end() : argv.begin() + 1, argv.end());
      argv = std::move(next);
      given = interp;
      path = host_path(req.dirfd, interp);
      continue;
    }
    if (err < 0) return err;
    auto elf = load_elf(path);
    if (!elf) return -ENOEXEC;  // not an ELF, or one the recorder cannot run (Linux: no binfmt handler)
    if (!interpreter_present(*elf, req.sysroot)) return -ENOENT;
    break;
  }
  char real[PATH_MAX];
  out.program = path;
  out.exe = ::realpath(path.c_str(), real) ? std::string(real) : path;
  out.requested = req.path.empty() ? path : req.path;
  out.argv = std::move(argv);
  out.envp = req.envp;
  return 0;
}

}  // namespace ttd::rec
