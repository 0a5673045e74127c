/* Descriptors the program inherits (argv[1] is one, opened by whoever
   started it) and its /proc/self/fd directory: the program's own
   descriptors, listed, rewound and sought as a directory. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv) {
  if (argc < 2) return 2;
  int fd = atoi(argv[1]);
  char buf[64] = {0};
  ssize_t n = read(fd, buf, sizeof buf - 1);
  printf("inherited %d read %ld: %s\n", fd, (long)n, n > 0 ? buf : strerror(errno));

  DIR *d = opendir("/proc/self/fd");
  if (!d) return 3;
  char names[1024] = "";
  int count = 0;
  long third = -1;
  char third_name[16] = "";
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    ++count;
    strcat(names, e->d_name);
    strcat(names, e->d_type == DT_LNK ? "l " : e->d_type == DT_DIR ? "d " : "? ");
    if (count == 3) third = telldir(d);
    if (count == 4) strcpy(third_name, e->d_name);
  }
  printf("listing %d: %s\n", count, names);
  rewinddir(d);
  int again = 0;
  while (readdir(d) != NULL) ++again;
  printf("rewound %d\n", again);
  seekdir(d, third);
  e = readdir(d);
  printf("seekdir to the fourth: %d\n", e != NULL && strcmp(e->d_name, third_name) == 0);
  closedir(d);
  int w = open("/proc/self/fd", O_WRONLY);
  printf("open for writing %d %s\n", w, w < 0 ? strerror(errno) : "");
  return 0;
}
