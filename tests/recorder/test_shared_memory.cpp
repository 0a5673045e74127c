// Memory shared between processes (docs/recording.md, "Processes";
// tools/recorder/host_shared_memory.h): programs/shared_memory.c prints
// what it prints natively. Until 2026-11-29 a MAP_SHARED|MAP_ANONYMOUS
// mapping was each process's own copy after a fork (the parent's
// semaphore wait never ended) and a shared mapping of a file in /dev/shm
// (shm_open, sem_open) was -ENOSYS.
#include <doctest/doctest.h>

#include <filesystem>

#include "tests/recorder/recording_support.h"

using namespace ttd;
using namespace ttd::rec;

TEST_CASE("shared memory: semaphores in MAP_SHARED|MAP_ANONYMOUS memory ping-pong with a fork's child") {
  // The parent also spins, with no syscall, until the child's store shows.
  test::check_mode_like_native("shared_memory", "anon", {"x86_64", "x86_64-dyn", "aarch64"});
}

TEST_CASE("shared memory: atomic adds and a process-shared mutex lose no update between two processes") {
  // Unicorn's atomic instructions are plain loads and stores on the host:
  // without the CrossProcessLock some adds were lost.
  test::check_mode_like_native("shared_memory", "atomic", {"x86_64", "x86_64-dyn", "aarch64"});
}

TEST_CASE("shared memory: shm_open and mmap of /dev/shm, shared with a fork's child") {
  test::check_mode_like_native("shared_memory", "shm", {"x86_64-dyn", "aarch64-dyn"});
}

TEST_CASE("shared memory: a named semaphore (sem_open), as Python's multiprocessing uses") {
  test::check_mode_like_native("shared_memory", "semopen", {"x86_64-dyn", "aarch64-dyn"});
}

TEST_CASE("fork children: a child's own threads take turns (a condition variable, joins)") {
  // Until 2026-11-29 they were made but never ran: the join waited for ever.
  test::check_mode_like_native("shared_memory", "child-threads", {"x86_64", "x86_64-dyn", "aarch64"});
}

TEST_CASE("fork children: a child thread spinning on another's store, with no syscall, lets it run") {
  // A child has no quantum (no code hook): until 2026-11-29 the spinner
  // kept the turn for ever. Now a thread's turn lasts at most
  // RecordingSession::kChildSliceUs of wall time.
  test::check_mode_like_native("shared_memory", "child-spin", {"x86_64", "x86_64-dyn", "aarch64"});
}

TEST_CASE("shared memory: Debian's python3 multiprocessing (Pool, Queue with a child Process, Manager), as natively") {
  // Each needs what this session added: Pool's and Queue's locks are
  // sem_open semaphores (/dev/shm, refused before), Queue.put in a child
  // runs a feeder thread and a Manager's server a thread per connection
  // (a child's threads never ran before).
  const char* python = "/usr/bin/python3";
  if (!std::filesystem::exists(python)) return;
  const std::vector<std::string> argv{
      python, "-S", "-c",
      "import multiprocessing as mp\n"
      "p = mp.Pool(2); print(sum(p.map(abs, range(-200, 200)))); p.close(); p.join()\n"
      "q = mp.Queue(); c = mp.Process(target=q.put, args=(42,)); c.start(); print(q.get()); c.join()\n"
      "m = mp.Manager(); d = m.dict(); c = mp.Process(target=d.__setitem__, args=(1, 5)); c.start(); c.join()\n"
      "print(dict(d)); m.shutdown()\n"};
  const test::NativeRun native = test::run_native(argv);
  REQUIRE(native.out == "40000\n42\n{1: 5}\n");
  // Without --verify (that alone takes minutes on an interpreter).
  RecordOptions o = test::capture_options(argv, test::temp_trace("multiprocessing.ucir"));
  o.env = {"LC_ALL=C"};
  auto sum = record(o);
  REQUIRE_MESSAGE(sum.ok(), test::error_text(sum));
  // Python's traceback, should a part fail (it did once in a full ctest
  // run of session 33, the Manager part, and did not again in 28 runs;
  // once more in session 35's second full `ctest -j2`, not in 4 reruns).
  INFO("stderr: " << sum->captured_stderr);
  CHECK(sum->captured_stdout == native.out);
  CHECK(sum->exit_code == 0);
  CHECK(sum->unsupported.empty());
  CHECK_FALSE(sum->deadlock.has_value());
  for (const RecordedTrace& t : sum->traces) std::filesystem::remove(t.path);
}
