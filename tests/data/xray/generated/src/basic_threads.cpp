// Real XRay basic-mode log from several threads, with logged arguments and
// tail exits. Run with XRAY_OPTIONS="patch_premain=true xray_mode=xray-basic ...".
#include <pthread.h>

#include <cstdio>

static volatile int sink;
[[clang::xray_always_instrument]] __attribute__((noinline)) int leaf(int x) {
  sink = x;
  return x * 3 + 1;
}
[[clang::xray_always_instrument]] __attribute__((noinline)) int tailer(int x) { return leaf(x + sink); }
[[clang::xray_always_instrument, clang::xray_log_args(1)]] __attribute__((noinline)) int witharg(int a) {
  int s = 0;
  for (int i = 0; i < a % 3; i++) s += leaf(i);
  return s + tailer(a);
}
[[clang::xray_always_instrument]] __attribute__((noinline)) void *worker(void *p) {
  long k = (long)p;
  int r = 0;
  for (int i = 0; i < 30; i++) r += witharg(i + (int)k * 100);
  return (void *)(long)r;
}
int main() {
  pthread_t t[3];
  for (long i = 0; i < 3; i++) pthread_create(&t[i], nullptr, worker, (void *)i);
  for (int i = 0; i < 3; i++) pthread_join(t[i], nullptr);
  std::printf("%d\n", witharg(4));
  return 0;
}
