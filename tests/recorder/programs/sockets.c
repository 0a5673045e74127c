// Sockets under the recorder (test_sockets.cpp): what this prints under
// `ttd record` must be what it prints natively. Only the main thread
// prints; the others leave what they saw in globals, read after a join.
//   pair     socketpair between two threads: the main thread blocks in recv
//            while the worker computes, then sends (only that thread parks)
//   rights   SCM_RIGHTS passing a pipe's read end over a socketpair
//   unix     AF_UNIX stream server and client threads on a relative path
//            under a temporary directory (bind, listen, accept, connect,
//            send/recv, shutdown, getsockname/getpeername)
//   inet     TCP on 127.0.0.1 port 0 between two threads; UDP to itself
//   poll     poll and epoll over a socket and a pipe
//   fork     a fork's child writes on a socketpair end it inherited
// No argument: all of them, in that order.
//   exec-recv PATH   connects to the AF_UNIX server at PATH (the test's),
//            then execs itself as "exec-child FD": the new image's only
//            thread asks the server and waits in recv for its late answer
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile unsigned long computed;
static char got[64];
static long got_n;

static unsigned long compute(void) {
  unsigned long x = 1;
  for (int i = 0; i < 200000; ++i) x = x * 6364136223846793005ul + 1442695040888963407ul;
  return x;
}

static void* pair_worker(void* arg) {
  int fd = *(int*)arg;
  computed = compute() | 1;
  send(fd, "hello", 5, 0);
  return NULL;
}

static void pair(void) {
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
    printf("pair: socketpair failed\n");
    return;
  }
  pthread_t t;
  pthread_create(&t, NULL, pair_worker, &sv[1]);
  char buf[16] = {0};
  long n = recv(sv[0], buf, sizeof buf, 0);
  printf("pair: recv %ld \"%s\" after the worker computed: %d\n", n, buf, computed != 0);
  pthread_join(t, NULL);
  // SOCK_SEQPACKET keeps message boundaries; MSG_DONTWAIT on an empty one.
  int sp[2];
  socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sp);
  send(sp[1], "one", 3, 0);
  send(sp[1], "two!", 4, 0);
  n = recv(sp[0], buf, sizeof buf, 0);
  long m = recv(sp[0], buf + 8, sizeof buf - 8, 0);
  long e = recv(sp[0], buf, sizeof buf, MSG_DONTWAIT);
  printf("pair: seqpacket %ld %ld, empty %ld\n", n, m, e);
  close(sp[0]);
  close(sp[1]);
  close(sv[0]);
  close(sv[1]);
}

static void rights(void) {
  int sv[2], p[2];
  socketpair(AF_UNIX, SOCK_DGRAM, 0, sv);
  pipe(p);
  char byte = 'x';
  struct iovec iov = {&byte, 1};
  union {
    char buf[CMSG_SPACE(sizeof(int))];
    struct cmsghdr align;
  } u;
  memset(&u, 0, sizeof u);
  struct msghdr msg = {0};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = u.buf;
  msg.msg_controllen = sizeof u.buf;
  struct cmsghdr* c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  memcpy(CMSG_DATA(c), &p[0], sizeof(int));
  long sent = sendmsg(sv[0], &msg, 0);
  close(p[0]);  // the message holds the pipe open

  char in = 0;
  struct iovec iov2 = {&in, 1};
  union {
    char buf[CMSG_SPACE(sizeof(int))];
    struct cmsghdr align;
  } u2;
  memset(&u2, 0, sizeof u2);
  struct msghdr rm = {0};
  rm.msg_iov = &iov2;
  rm.msg_iovlen = 1;
  rm.msg_control = u2.buf;
  rm.msg_controllen = sizeof u2.buf;
  long r = recvmsg(sv[1], &rm, MSG_CMSG_CLOEXEC);
  struct cmsghdr* rc = CMSG_FIRSTHDR(&rm);
  int fd = -1;
  if (rc && rc->cmsg_type == SCM_RIGHTS) memcpy(&fd, CMSG_DATA(rc), sizeof fd);
  printf("rights: sent %ld received %ld '%c' controllen %zu flags %d rights %d\n", sent, r, in,
         (size_t)rm.msg_controllen, rm.msg_flags, rc && rc->cmsg_type == SCM_RIGHTS);
  write(p[1], "via the pipe", 12);
  char buf[32] = {0};
  long n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
  printf("rights: read %ld \"%s\" from the received fd (a new one: %d)\n", n, buf, fd > 2 && fd != p[1]);
  close(fd);
  close(p[1]);
  close(sv[0]);
  close(sv[1]);
}

static void* unix_client(void* arg) {
  (void)arg;
  int c = socket(AF_UNIX, SOCK_STREAM, 0);
  struct sockaddr_un a = {0};
  a.sun_family = AF_UNIX;
  strcpy(a.sun_path, "server.sock");  // relative: the process's working directory
  if (connect(c, (struct sockaddr*)&a, sizeof a) != 0) {
    got_n = -2;
    return NULL;
  }
  send(c, "ping", 4, 0);
  long n = recv(c, got, sizeof got - 1, 0);
  long eof = recv(c, got + 32, 8, 0);  // the server's shutdown
  got_n = n * 100 + eof;
  close(c);
  return NULL;
}

static void unix_stream(void) {
  char dir[] = "/tmp/ttd-sockets-XXXXXX";
  char here[4096];
  if (!mkdtemp(dir) || !getcwd(here, sizeof here) || chdir(dir) != 0) {
    printf("unix: no temporary directory\n");
    return;
  }
  int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  struct sockaddr_un a = {0};
  a.sun_family = AF_UNIX;
  strcpy(a.sun_path, "server.sock");
  int b = bind(s, (struct sockaddr*)&a, sizeof a);
  int l = listen(s, 4);
  struct sockaddr_un name = {0};
  socklen_t len = sizeof name;
  getsockname(s, (struct sockaddr*)&name, &len);
  printf("unix: bind %d listen %d getsockname \"%s\" len %u\n", b, l, name.sun_path, (unsigned)len);
  memset(got, 0, sizeof got);
  pthread_t t;
  pthread_create(&t, NULL, unix_client, NULL);
  int c = accept(s, NULL, NULL);  // waits for the client thread
  char buf[16] = {0};
  long n = recv(c, buf, sizeof buf, 0);
  len = sizeof name;
  int gp = getpeername(c, (struct sockaddr*)&name, &len);
  printf("unix: accepted, recv %ld \"%s\", getpeername %d len %u (unnamed)\n", n, buf, gp, (unsigned)len);
  send(c, "pong", 4, 0);
  shutdown(c, SHUT_WR);
  pthread_join(t, NULL);
  printf("unix: client got \"%s\" (%ld bytes) then end of file %d\n", got, got_n / 100, got_n % 100 == 0);
  close(c);
  close(s);
  unlink("server.sock");
  chdir(here);
  rmdir(dir);
}

static int tcp_port;

static void* tcp_client(void* arg) {
  (void)arg;
  int c = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {0};
  a.sin_family = AF_INET;
  a.sin_port = htons(tcp_port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(c, (struct sockaddr*)&a, sizeof a) != 0) {
    got_n = -2;
    return NULL;
  }
  const char* msg = "GET / over tcp";
  write(c, msg, strlen(msg));
  got_n = read(c, got, sizeof got - 1);
  close(c);
  return NULL;
}

static void inet(void) {
  int s = socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  int so = setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  int v = 0;
  socklen_t vl = sizeof v;
  getsockopt(s, SOL_SOCKET, SO_TYPE, &v, &vl);
  struct sockaddr_in a = {0};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(s, (struct sockaddr*)&a, sizeof a);
  listen(s, 4);
  socklen_t len = sizeof a;
  getsockname(s, (struct sockaddr*)&a, &len);
  tcp_port = ntohs(a.sin_port);
  printf("inet: setsockopt %d SO_TYPE %d (stream %d), bound to %s, a port: %d\n", so, v, v == SOCK_STREAM,
         inet_ntoa(a.sin_addr), tcp_port > 0);
  memset(got, 0, sizeof got);
  pthread_t t;
  pthread_create(&t, NULL, tcp_client, NULL);
  struct sockaddr_in peer = {0};
  len = sizeof peer;
  int c = accept4(s, (struct sockaddr*)&peer, &len, SOCK_CLOEXEC);
  char buf[32] = {0};
  long n = read(c, buf, sizeof buf - 1);
  printf("inet: accepted from %s, read %ld \"%s\"\n", inet_ntoa(peer.sin_addr), n, buf);
  write(c, "200 OK", 6);
  pthread_join(t, NULL);
  printf("inet: client read %ld \"%s\"\n", got_n, got);
  close(c);
  close(s);

  int u = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
  struct sockaddr_in ua = {0};
  ua.sin_family = AF_INET;
  ua.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(u, (struct sockaddr*)&ua, sizeof ua);
  len = sizeof ua;
  getsockname(u, (struct sockaddr*)&ua, &len);
  long e = recvfrom(u, buf, sizeof buf, 0, NULL, NULL);  // non-blocking, empty
  long sent = sendto(u, "datagram", 8, 0, (struct sockaddr*)&ua, sizeof ua);
  struct pollfd p = {u, POLLIN, 0};
  poll(&p, 1, -1);
  struct sockaddr_in from = {0};
  socklen_t fl = sizeof from;
  memset(buf, 0, sizeof buf);
  n = recvfrom(u, buf, sizeof buf, 0, (struct sockaddr*)&from, &fl);
  printf("inet: udp empty %ld, sendto %ld, recvfrom %ld \"%s\" from itself %d\n", e, sent, n, buf,
         from.sin_port == ua.sin_port && fl == sizeof from);
  close(u);
}

static int go[2];

static void* poll_worker(void* arg) {
  int fd = *(int*)arg;
  char c;
  while (read(go[0], &c, 1) == 1 && c != 'q') {
    computed = compute();
    send(fd, &c, 1, 0);
  }
  return NULL;
}

static void poll_epoll(void) {
  int sv[2], p[2];
  socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
  pipe(p);
  pipe(go);
  pthread_t t;
  pthread_create(&t, NULL, poll_worker, &sv[1]);
  write(go[1], "a", 1);
  struct pollfd fds[2] = {{sv[0], POLLIN, 0}, {p[0], POLLIN, 0}};
  int r = poll(fds, 2, -1);  // waits for the worker's send
  printf("poll: %d, socket revents 0x%x, pipe revents 0x%x\n", r, fds[0].revents, fds[1].revents);
  char c;
  recv(sv[0], &c, 1, 0);
  write(p[1], "p", 1);
  r = poll(fds, 2, 0);
  printf("poll: %d, socket revents 0x%x, pipe revents 0x%x\n", r, fds[0].revents, fds[1].revents);
  read(p[0], &c, 1);

  int ep = epoll_create1(EPOLL_CLOEXEC);
  struct epoll_event ev = {EPOLLIN, {.u64 = 1}};
  epoll_ctl(ep, EPOLL_CTL_ADD, sv[0], &ev);
  ev.data.u64 = 2;
  epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev);
  write(go[1], "b", 1);
  struct epoll_event out[4];
  r = epoll_wait(ep, out, 4, -1);  // waits for the worker's send
  printf("epoll: %d, first data %llu events 0x%x\n", r, (unsigned long long)out[0].data.u64, out[0].events);
  recv(sv[0], &c, 1, 0);
  write(p[1], "p", 1);
  r = epoll_wait(ep, out, 4, 0);
  printf("epoll: %d, first data %llu\n", r, r > 0 ? (unsigned long long)out[0].data.u64 : 0ull);
  write(go[1], "q", 1);
  pthread_join(t, NULL);
  close(ep);
  close(sv[0]);
  close(sv[1]);
  close(p[0]);
  close(p[1]);
  close(go[0]);
  close(go[1]);
}

static void fork_child(void) {
  int sv[2];
  socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    close(sv[0]);
    send(sv[1], "from the child", 14, 0);
    _exit(0);
  }
  close(sv[1]);
  char buf[32] = {0};
  long n = recv(sv[0], buf, sizeof buf - 1, MSG_WAITALL);
  int st = 0;
  waitpid(pid, &st, 0);
  printf("fork: recv %ld \"%s\", child status %d\n", n, buf, st);
  close(sv[0]);
}

static void exec_recv(const char* self, const char* path) {
  int c = socket(AF_UNIX, SOCK_STREAM, 0);  // not close-on-exec: the next image keeps it
  struct sockaddr_un a = {0};
  a.sun_family = AF_UNIX;
  strncpy(a.sun_path, path, sizeof a.sun_path - 1);
  if (connect(c, (struct sockaddr*)&a, sizeof a) != 0) {
    printf("exec: connect failed\n");
    return;
  }
  char fd_text[16];
  snprintf(fd_text, sizeof fd_text, "%d", c);
  printf("exec: connected\n");
  execl(self, self, "exec-child", fd_text, (char*)NULL);
  printf("exec: execl failed\n");
}

static void exec_child(int fd) {
  char buf[32] = {0};
  send(fd, "?", 1, 0);  // the server answers a while after this
  long n = recv(fd, buf, sizeof buf - 1, 0);
  printf("exec: after exec, recv %ld \"%s\"\n", n, buf);
}

int main(int argc, char** argv) {
  const char* only = argc > 1 ? argv[1] : "";
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (argc > 2 && !strcmp(only, "exec-recv")) exec_recv(argv[0], argv[2]);
  if (argc > 2 && !strcmp(only, "exec-child")) exec_child(atoi(argv[2]));
  if (argc > 2) return 0;
  if (!*only || !strcmp(only, "pair")) pair();
  if (!*only || !strcmp(only, "rights")) rights();
  if (!*only || !strcmp(only, "unix")) unix_stream();
  if (!*only || !strcmp(only, "inet")) inet();
  if (!*only || !strcmp(only, "poll")) poll_epoll();
  if (!*only || !strcmp(only, "fork")) fork_child();
  return 0;
}
