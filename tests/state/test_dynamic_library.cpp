// DynamicLibrary (state/dynamic_library.h): the errors that say which
// library could not be opened, and which function it lacks.
#include <doctest/doctest.h>

#include <cstdlib>
#include <cstring>

#include "state/dynamic_library.h"

using namespace ttd;

TEST_CASE("DynamicLibrary: a missing library is an error naming the file") {
  auto lib = DynamicLibrary::open("/nonexistent-ttd-test/libnothing.so.7");
  REQUIRE_FALSE(lib.ok());
  std::string msg = lib.error().to_string();
  CHECK(msg.find("/nonexistent-ttd-test/libnothing.so.7") != std::string::npos);
  CHECK(msg.find("cannot load the shared library") != std::string::npos);
}

TEST_CASE("DynamicLibrary: a function the library lacks is an error naming library and function") {
  auto lib = DynamicLibrary::open("libc.so.6");
  REQUIRE(lib.ok());
  auto strlen_p = lib->symbol("strlen");
  REQUIRE(strlen_p.ok());
  auto f = reinterpret_cast<size_t (*)(const char*)>(*strlen_p);
  CHECK(f("four") == 4);
  auto none = lib->symbol("ttd_no_such_function");
  REQUIRE_FALSE(none.ok());
  std::string msg = none.error().to_string();
  CHECK(msg.find("libc.so.6") != std::string::npos);
  CHECK(msg.find("ttd_no_such_function") != std::string::npos);
}

TEST_CASE("library_file_from_env: the variable when set and not empty, else the built-in soname") {
  ::unsetenv("TTD_TEST_LIBRARY_FILE");
  CHECK(library_file_from_env("TTD_TEST_LIBRARY_FILE", "libx.so.1") == "libx.so.1");
  ::setenv("TTD_TEST_LIBRARY_FILE", "", 1);
  CHECK(library_file_from_env("TTD_TEST_LIBRARY_FILE", "libx.so.1") == "libx.so.1");
  ::setenv("TTD_TEST_LIBRARY_FILE", "/opt/libx.so.1", 1);
  CHECK(library_file_from_env("TTD_TEST_LIBRARY_FILE", "libx.so.1") == "/opt/libx.so.1");
  ::unsetenv("TTD_TEST_LIBRARY_FILE");
}
