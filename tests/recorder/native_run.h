// Runs a program natively (the x86-64 host) with only LC_ALL=C in its
// environment and captures its stdout and exit status: the ground truth
// recorder tests compare a recording's output with.
#pragma once
#include <sys/wait.h>

#include <cstdio>
#include <string>
#include <vector>

#include <doctest/doctest.h>

namespace ttd::rec::test {

struct NativeRun {
  std::string out;
  int status = -1;
};

// Runs a shell command line and captures its stdout and exit status.
inline NativeRun run_shell(const std::string& cmd) {
  NativeRun r;
  FILE* p = popen(cmd.c_str(), "r");
  REQUIRE(p);
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

// What `prog` prints natively with an empty environment.
inline std::string native_output(const std::string& prog) { return run_shell("env -i '" + prog + "'").out; }

inline NativeRun run_native(const std::vector<std::string>& argv) {
  std::string cmd = "env -i LC_ALL=C";
  for (const auto& a : argv) cmd += " '" + a + "'";
  return run_shell(cmd);
}

}  // namespace ttd::rec::test
