// The plain doctest runner (tests/CMakeLists.txt: ttd_doctest_main). Suites
// with their own main() (test_ucir, test_state) link ttd_doctest instead.
#include <doctest/doctest.h>

int main(int argc, char** argv) { return doctest::Context(argc, argv).run(); }
