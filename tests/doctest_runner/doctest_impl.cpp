// doctest's implementation, compiled once for every test executable
// (tests/CMakeLists.txt: ttd_doctest). On the CI machine one copy costs
// about 100 s of CPU; each suite used to compile its own.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>
