/* Changes to the file system under the recorder (linux_kernel_fs_changes.cpp):
 * directories, renames, links, modes, sizes, times, locks and in-kernel
 * copies, in a scratch directory given as argv[1]. Prints results and
 * errno names only (no paths or host-specific values), so the recorded run
 * must print exactly what the native run prints. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

static const char *err(int r) {
  if (r >= 0) return "ok";
  switch (errno) {
    case EEXIST: return "EEXIST";
    case ENOENT: return "ENOENT";
    case ENOTEMPTY: return "ENOTEMPTY";
    case EBADF: return "EBADF";
    case EINVAL: return "EINVAL";
    case ENOTDIR: return "ENOTDIR";
    case EPERM: return "EPERM";
    case ENODATA: return "ENODATA";
    case EOPNOTSUPP: return "EOPNOTSUPP";
    default: return strerror(errno);
  }
}

static long size_of(const char *p) {
  struct stat st;
  return stat(p, &st) == 0 ? (long)st.st_size : -1;
}

int main(int argc, char **argv) {
  if (argc < 2 || chdir(argv[1]) != 0) return 2;
  printf("mkdir d %s\n", err(mkdir("d", 0750)));
  printf("mkdir d again %s\n", err(mkdir("d", 0750)));
  int dfd = open("d", O_RDONLY | O_DIRECTORY);
  printf("mkdirat d/sub %s\n", err(mkdirat(dfd, "sub", 0700)));
  /* One call per statement: printf's arguments have no order. */
  int fd = creat("d/a.txt", 0644);
  printf("creat %s", err(fd));
  printf(" write %zd\n", write(fd, "hello, file system\n", 19));
  printf("fsync %s", err(fsync(fd)));
  printf(" fdatasync %s\n", err(fdatasync(fd)));
  printf("fsync stdout %s\n", err(fsync(1)));
  printf("flock %s", err(flock(fd, LOCK_EX)));
  printf(" unlock %s\n", err(flock(fd, LOCK_UN)));
  printf("ftruncate 5 %s", err(ftruncate(fd, 5)));
  printf(" size %ld\n", size_of("d/a.txt"));
  printf("fallocate %s", err(fallocate(fd, 0, 0, 4096)));
  printf(" size %ld\n", size_of("d/a.txt"));
  printf("truncate 7 %s", err(truncate("d/a.txt", 7)));
  printf(" size %ld\n", size_of("d/a.txt"));
  struct stat st;
  printf("fchmod 0600 %s", err(fchmod(fd, 0600)));
  stat("d/a.txt", &st);
  printf(" mode %o\n", st.st_mode & 07777);
  printf("chmod 0640 %s", err(chmod("d/a.txt", 0640)));
  stat("d/a.txt", &st);
  printf(" mode %o\n", st.st_mode & 07777);
  printf("fchownat to own ids %s\n", err(fchownat(AT_FDCWD, "d/a.txt", getuid(), getgid(), 0)));
  printf("fchown to own ids %s\n", err(fchown(fd, geteuid(), getegid())));
  close(fd);

  printf("link %s\n", err(link("d/a.txt", "d/hard")));
  stat("d/a.txt", &st);
  printf("nlink %ld\n", (long)st.st_nlink);
  printf("symlink %s\n", err(symlink("a.txt", "d/soft")));
  char target[64] = {0};
  printf("readlink %zd", readlink("d/soft", target, sizeof target - 1));
  printf(" %s\n", target);
  printf("symlinkat %s\n", err(symlinkat("../d", dfd, "up")));
  printf("rename %s\n", err(rename("d/hard", "d/b.txt")));
  printf("renameat %s\n", err(renameat(dfd, "b.txt", AT_FDCWD, "c.txt")));
  printf("renameat2 NOREPLACE onto existing %s\n",
         err((int)syscall(SYS_renameat2, AT_FDCWD, "c.txt", dfd, "a.txt", 1 /* RENAME_NOREPLACE */)));
  printf("rename missing %s\n", err(rename("nothing", "d/x")));

  struct timespec times[2] = {{1000000000, 5}, {1234567890, 123456789}};
  printf("utimensat %s", err(utimensat(dfd, "a.txt", times, 0)));
  stat("d/a.txt", &st);
  /* Only the modification time: the recorder's stat gives it in all three
     fields (docs/recording.md), so atime would differ by design. */
  printf(" mtime %ld.%09ld\n", (long)st.st_mtim.tv_sec, (long)st.st_mtim.tv_nsec);
  int afd = open("d/a.txt", O_RDWR);
  times[1].tv_sec = 1500000000;
  printf("futimens %s", err(futimens(afd, times)));
  stat("d/a.txt", &st);
  printf(" mtime %ld\n", (long)st.st_mtim.tv_sec);

  /* In-kernel copies, with and without offsets the kernel updates. */
  int out = open("d/copy", O_CREAT | O_RDWR | O_TRUNC, 0644);
  lseek(afd, 0, SEEK_SET);
  pwrite(afd, "0123456", 7, 0);
  loff_t in_off = 2, out_off = 1;
  ssize_t n = syscall(SYS_copy_file_range, afd, &in_off, out, &out_off, 3, 0);
  printf("copy_file_range %zd in_off %lld out_off %lld\n", n, (long long)in_off, (long long)out_off);
  off_t soff = 4;
  n = sendfile(out, afd, &soff, 2);
  printf("sendfile %zd offset %lld", n, (long long)soff);
  printf(" size %ld\n", size_of("d/copy"));
  char buf[16] = {0};
  pread(out, buf, sizeof buf - 1, 0);
  printf("copy holds %zu bytes, from 1: %s\n", strlen(buf + 1) + 1, buf + 1);
  printf("copy_file_range from stdin %s\n", err((int)syscall(SYS_copy_file_range, 0, NULL, out, NULL, 1, 0)));
  close(out);

  /* Extended attributes (sed -i, cp -p copy ACLs); a file system without
     user attributes answers EOPNOTSUPP natively and recorded alike. */
  int sx = setxattr("d/a.txt", "user.ttd", "v1", 2, 0);
  printf("setxattr %s", err(sx));
  if (sx == 0) {
    char v[8] = {0};
    printf(" get %zd %s", getxattr("d/a.txt", "user.ttd", v, sizeof v), v);
    printf(" fset %s", err(fsetxattr(afd, "user.ttd", "v22", 3, XATTR_REPLACE)));
    printf(" create-only %s", err(fsetxattr(afd, "user.ttd", "x", 1, XATTR_CREATE)));
    printf(" remove %s", err(removexattr("d/a.txt", "user.ttd")));
    printf(" again %s", err(lremovexattr("d/a.txt", "user.ttd")));
  }
  printf("\nfsetxattr on stdout %s\n", err(fsetxattr(1, "user.ttd", "x", 1, 0)));
  close(afd);

  printf("rmdir non-empty %s\n", err(rmdir("d")));
  const char *names[] = {"d/a.txt", "d/soft", "d/up", "c.txt", "d/copy"};
  for (unsigned i = 0; i < sizeof names / sizeof *names; i++) printf("unlink %s\n", err(unlink(names[i])));
  printf("rmdir sub %s\n", err(rmdir("d/sub")));
  printf("rmdir d %s\n", err(rmdir("d")));
  printf("mknod fifo %s\n", err(mknod("fifo", S_IFIFO | 0600, 0)));
  printf("unlink fifo %s\n", err(unlink("fifo")));
  close(dfd);
  return 0;
}
