/* Two threads and a pipe, for the recorder's blocking-read test.
 *
 * Default mode: the main thread reads the pipe before the writer thread
 * has run (under the recorder a new thread waits for its turn, so the pipe
 * is empty then) and the writer writes more than a pipe holds (64 KiB), so
 * both an empty-pipe read and a full-pipe write must wait for the other
 * thread. Prints what it read.
 *
 * "deadlock": both threads read a pipe nobody writes. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int fds[2];
static unsigned char data[200000];

static void* writer(void* arg) {
  (void)arg;
  for (size_t i = 0; i < sizeof data; ++i) data[i] = (unsigned char)(i * 7 + i / 251);
  size_t done = 0;
  while (done < sizeof data) {
    ssize_t n = write(fds[1], data + done, sizeof data - done);
    if (n <= 0) return (void*)1;
    done += (size_t)n;
  }
  close(fds[1]);
  return 0;
}

static void* reader(void* arg) {
  (void)arg;
  char b[16];
  return (void*)(long)read(fds[0], b, sizeof b);
}

int main(int argc, char** argv) {
  pthread_t t;
  if (pipe(fds) != 0) return 2;
  int deadlock = argc > 1 && strcmp(argv[1], "deadlock") == 0;
  if (pthread_create(&t, 0, deadlock ? reader : writer, 0) != 0) return 3;
  unsigned long total = 0, sum = 0;
  unsigned char b[1000];
  ssize_t n;
  while ((n = read(fds[0], b, deadlock ? 16 : sizeof b)) > 0) {
    total += (unsigned long)n;
    for (ssize_t i = 0; i < n; ++i) sum = sum * 31 + b[i];
  }
  void* rc;
  pthread_join(t, &rc);
  printf("read %lu bytes, sum %lu, writer %ld\n", total, sum, (long)rc);
  return 0;
}
