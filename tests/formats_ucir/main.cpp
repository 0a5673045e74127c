// doctest runner. "test_ucir --write-seeds DIR" writes the tiny UCIR files
// the fuzz target's seed corpus (tests/fuzz/corpus/ucir) is made of.
// doctest itself: ttd_doctest (tests/doctest_runner/doctest_impl.cpp).
#include <doctest/doctest.h>

#include <cstring>

#include "sample_traces.h"
#include "ucir_test_support.h"

int main(int argc, char** argv) {
  if (argc >= 3 && !std::strcmp(argv[1], "--write-seeds")) return ttd::test::write_seed_corpus(argv[2]) ? 0 : 1;
  doctest::Context ctx(argc, argv);
  const int rc = ctx.run();
  ttd::test::remove_temp_files();
  return rc;
}
