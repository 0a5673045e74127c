#include "tools/recorder/program_lookup.h"

#include <sys/stat.h>
#include <unistd.h>

namespace ttd::rec {

namespace {

enum class Candidate { Missing, NotExecutable, Runnable };

Candidate look_at(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return Candidate::Missing;
  return ::access(path.c_str(), X_OK) == 0 ? Candidate::Runnable : Candidate::NotExecutable;
}

}  // namespace

const std::string* path_in_environment(const std::vector<std::string>& env, std::string& storage) {
  for (const auto& e : env)
    if (e.rfind("PATH=", 0) == 0) {
      storage = e.substr(5);
      return &storage;
    }
  return nullptr;
}

Result<std::string> find_program(const std::string& name, const std::string* path_value) {
  if (name.find('/') != std::string::npos) return name;
  const std::string path = path_value ? *path_value : std::string("/bin:/usr/bin");
  std::string not_executable;
  size_t start = 0;
  while (true) {
    const size_t end = path.find(':', start);
    std::string dir = path.substr(start, end == std::string::npos ? std::string::npos : end - start);
    const std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + name;
    switch (look_at(candidate)) {
      case Candidate::Runnable: return candidate;
      case Candidate::NotExecutable:
        if (not_executable.empty()) not_executable = candidate;
        break;
      case Candidate::Missing: break;
    }
    if (end == std::string::npos) break;
    start = end + 1;
  }
  std::string msg = "not found in PATH (" + path + ")";
  if (!not_executable.empty())
    msg += "; " + not_executable + " exists but is not executable";
  else if (look_at("./" + name) != Candidate::Missing)
    msg += "; to run the file in the current directory, give it as ./" + name;
  return make_error(name, msg);
}

}  // namespace ttd::rec
