// Memory shared between processes (docs/recording.md, "Processes";
// tools/recorder/host_shared_memory.h): programs/shared_memory.c prints
// what it prints natively. Until 2026-11-29 a MAP_SHARED|MAP_ANONYMOUS
// mapping was each process's own copy after a fork (the parent's
// semaphore wait never ended) and a shared mapping of a file in /dev/shm
// (shm_open, sem_open) was -ENOSYS.
#include <doctest/doctest.h>

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
