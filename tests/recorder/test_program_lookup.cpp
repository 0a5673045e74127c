// Which program `ttd record -- NAME` runs, and the environment it gets.
#include <doctest/doctest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "tests/recorder/trace_digest.h"
#include "tools/recorder/program_environment.h"
#include "tools/recorder/program_lookup.h"

using namespace ttd;
using namespace ttd::rec;

namespace {

std::string make_file(const std::string& dir, const std::string& name, mode_t mode) {
  std::filesystem::create_directories(dir);
  const std::string p = dir + "/" + name;
  std::ofstream(p) << "#!/bin/sh\n";
  ::chmod(p.c_str(), mode);
  return p;
}

}  // namespace

TEST_CASE("a name without a slash is looked up in PATH, in order, as execvp does") {
  const std::string base = test::temp_trace("lookup");
  const std::string a = base + "/a", b = base + "/b";
  make_file(a, "tool", 0644);  // not executable: skipped
  const std::string in_b = make_file(b, "tool", 0755);
  std::string path = "/nonexistent-dir:" + a + ":" + b;
  auto r = find_program("tool", &path);
  REQUIRE(r.ok());
  CHECK(*r == in_b);

  // With a slash: the name itself, untouched (even when missing).
  CHECK(*find_program("./tool", &path) == "./tool");
  CHECK(*find_program("/no/such", &path) == "/no/such");

  // Not found: the error names the program, the PATH, and the file that
  // exists but cannot be run.
  std::string only_a = a;
  auto miss = find_program("tool", &only_a);
  REQUIRE_FALSE(miss.ok());
  const std::string e = miss.error().to_string();
  CHECK(e.find("tool") != std::string::npos);
  CHECK(e.find("not found in PATH (" + a + ")") != std::string::npos);
  CHECK(e.find("not executable") != std::string::npos);

  // PATH unset: glibc's default, where sh is.
  auto sh = find_program("sh", nullptr);
  REQUIRE(sh.ok());
  CHECK(*sh == "/bin/sh");
  std::filesystem::remove_all(base);
}

TEST_CASE("PATH is the environment's first PATH=") {
  std::string storage;
  CHECK(path_in_environment({"HOME=/x", "MYPATH=/no"}, storage) == nullptr);
  const std::string* p = path_in_environment({"PATHX=1", "PATH=/a:/b", "PATH=/c"}, storage);
  REQUIRE(p != nullptr);
  CHECK(*p == "/a:/b");
}

TEST_CASE("--env replaces an inherited variable where it stands and adds a new one at the end") {
  auto r = environment_with({"HOME=/root", "HOMEDIR=/h", "TERM=xterm", "HOME=/dup"}, {"HOME=/tmp/x", "NEW=1"});
  REQUIRE(r.ok());
  CHECK(*r == std::vector<std::string>{"HOME=/tmp/x", "HOMEDIR=/h", "TERM=xterm", "NEW=1"});
  auto empty_value = environment_with({"A=1"}, {"A="});
  REQUIRE(empty_value.ok());
  CHECK(*empty_value == std::vector<std::string>{"A="});
}

TEST_CASE("--env without NAME=VALUE is an error naming the setting") {
  for (const char* bad : {"HOME", "=x", ""}) {
    auto r = environment_with({"A=1"}, {bad});
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().to_string().find("NAME=VALUE") != std::string::npos);
    CHECK(r.error().to_string().find(std::string("'") + bad + "'") != std::string::npos);
  }
}
