// Real XRay FDR logs with what the small demos lack: several buffers per
// thread (run with a small buffer_size), tail exits (-O2), CPU migration
// (NewCPUId mid-buffer), a TSC wrap (a call lasting > 2^32 ticks), custom
// and typed events in every worker (so several buffers lose their tails
// to compiler-rt's BufferExtents bug), and logged arguments.
// Usage: fdr_rich [threads] [iterations] [sleep_ms] [events]
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "xray/xray_interface.h"
#include "xray/xray_log_interface.h"

static volatile int sink;
static int g_iters = 200, g_events = 1;

[[clang::xray_always_instrument]] __attribute__((noinline)) int leaf(int x) {
  sink = x;
  return x * 3 + 1;
}
// At -O2 the call below becomes a jump: the runtime logs a tail exit.
[[clang::xray_always_instrument]] __attribute__((noinline)) int tailer(int x) { return leaf(x + sink); }
[[clang::xray_always_instrument, clang::xray_log_args(1)]] __attribute__((noinline)) int witharg(int a) {
  int s = 0;
  for (int i = 0; i < a % 4; i++) s += leaf(i);
  return s + tailer(a);
}
// The runtime's event trampolines need a 16-byte aligned stack at their
// call, but the sleds push 2 (custom) or 3 (typed) registers wherever they
// are (clang 14/16 crash in movaps otherwise). So the typed event is logged
// from a function without a frame (8 + 24 bytes) and the custom event from
// one with a single-slot frame (8 + 8 + 16 bytes). Payloads live in globals.
static char g_msg[32], g_tmsg[16];
static size_t g_msg_len, g_tmsg_len;
__attribute__((noinline)) void after_custom() { sink = 1; }
[[clang::xray_always_instrument]] __attribute__((noinline)) void emit_custom() {
  __xray_customevent(g_msg, g_msg_len);
  after_custom();
  sink = 2;
}
[[clang::xray_always_instrument]] __attribute__((noinline)) void emit_typed() {
  __xray_typedevent(7, g_tmsg, g_tmsg_len);
}
[[clang::xray_always_instrument]] __attribute__((noinline)) void events(long k, int i) {
  g_msg_len = size_t(std::snprintf(g_msg, sizeof g_msg, "custom-%ld-%d", k, i));
  g_tmsg_len = size_t(std::snprintf(g_tmsg, sizeof g_tmsg, "t%ld.%d", k, i));
  emit_custom();
  emit_typed();
}
[[clang::xray_always_instrument]] __attribute__((noinline)) void migrate(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  sched_setaffinity(0, sizeof set, &set);
  sink = leaf(cpu);
}
[[clang::xray_always_instrument]] __attribute__((noinline)) void sleepy(int ms) {
  usleep(useconds_t(ms) * 1000);
}
[[clang::xray_always_instrument]] __attribute__((noinline)) void *worker(void *p) {
  long k = (long)p;
  int r = 0;
  for (int i = 0; i < g_iters; i++) {
    r += witharg(i + (int)k * 100);
    if (i % 50 == 0) migrate(int((i / 50 + k) % 2));
    if (g_events && i % 64 == 63) events(k, i);
  }
  return (void *)(long)r;
}
int main(int argc, char **argv) {
  int threads = argc > 1 ? std::atoi(argv[1]) : 4;
  g_iters = argc > 2 ? std::atoi(argv[2]) : 200;
  int sleep_ms = argc > 3 ? std::atoi(argv[3]) : 0;
  g_events = argc > 4 ? std::atoi(argv[4]) : 1;
  if (__xray_log_init_mode("xray-fdr", "") != XRayLogInitStatus::XRAY_LOG_INITIALIZED) {
    std::fprintf(stderr, "init failed\n");
    return 1;
  }
  __xray_patch();
  pthread_t t[16];
  if (threads > 16) threads = 16;
  for (long i = 0; i < threads; i++) pthread_create(&t[i], nullptr, worker, (void *)i);
  for (int i = 0; i < threads; i++) pthread_join(t[i], nullptr);
  if (sleep_ms) sleepy(sleep_ms);
  std::printf("%d\n", witharg(5));
  __xray_unpatch();
  int f = __xray_log_finalize();
  int fl = __xray_log_flushLog();
  std::fprintf(stderr, "finalize=%d flush=%d\n", f, fl);
  return 0;
}
