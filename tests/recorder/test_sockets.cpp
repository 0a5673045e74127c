// Sockets under the recorder (docs/recording.md, "Sockets"): programs/
// sockets.c prints what it prints natively for every build of it - a
// thread blocked in recv on a socketpair while another computes (only
// that thread parks), SCM_RIGHTS passing a pipe, an AF_UNIX server and
// client on a relative path, TCP and UDP on 127.0.0.1, poll and epoll
// over a socket and a pipe, a fork's child writing on an inherited
// socket - and the received bytes are in the trace as memory writes. The
// ancillary-data translation (guest_sockets.h) is checked on its own.
#include <doctest/doctest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <thread>

#include "tests/recorder/recording_support.h"
#include "tools/recorder/guest_sockets.h"

using namespace ttd;
using namespace ttd::rec;
namespace fs = std::filesystem;

namespace {

// recv/recvfrom: recvfrom on x86-64 (45) and AArch64 (207).
bool is_recvfrom(const std::string& arch, uint64_t n) { return arch == "x86_64" ? n == 45 : n == 207; }

// An AF_UNIX server in this process: accepts one client, reads its
// question, waits 300 ms (the client is parked in recv by then), answers
// "late hello" and closes.
class LateServer {
 public:
  explicit LateServer(const std::string& path) {
    fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::strncpy(a.sun_path, path.c_str(), sizeof a.sun_path - 1);
    ::unlink(path.c_str());
    REQUIRE(::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
    REQUIRE(::listen(fd_, 1) == 0);
    thread_ = std::thread([this] {
      const int c = ::accept(fd_, nullptr, nullptr);
      if (c < 0) return;
      char q;
      [[maybe_unused]] ssize_t r = ::recv(c, &q, 1, 0);
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      [[maybe_unused]] ssize_t n = ::send(c, "late hello", 10, MSG_NOSIGNAL);
      ::close(c);
    });
  }
  ~LateServer() {
    thread_.join();
    ::close(fd_);
  }

 private:
  int fd_ = -1;
  std::thread thread_;
};

}  // namespace

TEST_CASE("sockets: after execve the only thread waits on the host for a socket a peer elsewhere fills") {
  test::TempDir dir("sockets-exec");
  const std::string path = dir.file("server.sock");
  for (const char* variant : {"x86_64-dyn", "x86_64"}) {
    const std::string prog = test::program_path(variant, "sockets");
    if (prog.empty()) continue;
    INFO(std::string(variant));
    std::string native;
    {
      LateServer server(path);
      native = test::run_native({prog, "exec-recv", path}).out;
    }
    REQUIRE(native == "exec: connected\nexec: after exec, recv 10 \"late hello\"\n");
    const std::string out = test::temp_trace(std::string("sockets-exec-") + variant + ".ucir");
    LateServer server(path);
    auto sum = record(test::capture_options({prog, "exec-recv", path}, out));
    REQUIRE_MESSAGE(sum.ok(), test::error_text(sum));
    CHECK_FALSE(sum->deadlock.has_value());
    CHECK(sum->captured_stdout == native);
    for (const auto& t : sum->traces) fs::remove(t.path);
  }
}

TEST_CASE("sockets: pairs, SCM_RIGHTS, AF_UNIX, TCP/UDP, poll/epoll and a fork's child print what they print natively") {
  const std::string glibc_prog = test::program_path("x86_64-dyn", "sockets");
  if (glibc_prog.empty()) return;
  const std::string glibc_native = test::run_native({glibc_prog}).out;
  REQUIRE(glibc_native.find("pair: recv 5 \"hello\" after the worker computed: 1\n") == 0);
  REQUIRE(glibc_native.find("fork: recv 14 \"from the child\", child status 0\n") != std::string::npos);

  for (const char* variant : {"x86_64", "x86_64-glibc", "x86_64-dyn", "aarch64", "aarch64-dyn"}) {
    const std::string prog = test::program_path(variant, "sockets");
    if (prog.empty()) continue;
    INFO(std::string(variant));
    const bool x86 = std::string(variant).rfind("x86_64", 0) == 0;
    const std::string native = x86 ? test::run_native({prog}).out : glibc_native;
    const std::string out = test::temp_trace(std::string("sockets-") + variant);
    const RecordSummary summary = test::check_records_like_native(test::threaded_options(prog, out), native);
    CHECK(summary.threads >= 4);

    // What recv brought in is in the trace: the first recvfrom (the
    // blocked one, "hello") returned 5 with its bytes written.
    auto t = test::read_trace(out);
    REQUIRE_MESSAGE(t.ok(), test::error_text(t));
    bool hello = false;
    for (const auto& s : t->syscalls)
      if (is_recvfrom(t->arch, s.number) && t->tids.at(s.eid) == 1 && s.ret == 5 && s.mem_writes >= 1) hello = true;
    CHECK(hello);
    fs::remove(out);
  }
}

TEST_CASE("sockets: a thread blocked in recv on a socketpair parks, the same trace twice") {
  const std::string prog = test::program_path("x86_64-dyn", "sockets");
  if (prog.empty()) return;
  const std::string out = test::temp_trace("sockets-pair");
  RecordOptions o = test::threaded_options(prog, out, {"pair"});
  const RecordSummary summary = test::check_records_like_native(o, test::run_native({prog, "pair"}).out);
  CHECK(summary.threads == 2);
  test::check_records_identically(o, out, test::temp_trace("sockets-pair-again"));
  fs::remove(out);
}

TEST_CASE("guest_sockets: SCM_RIGHTS guest fds become host fds on send, received host fds are installed") {
  alignas(8) uint8_t buf[CMSG_SPACE(2 * sizeof(int))] = {};
  auto* c = reinterpret_cast<cmsghdr*>(buf);
  c->cmsg_len = CMSG_LEN(2 * sizeof(int));
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  const int guest[2] = {3, 7};
  std::memcpy(CMSG_DATA(c), guest, sizeof guest);

  std::vector<uint8_t> host;
  CHECK(control_to_host(buf, [](int g) { return g == 3 ? 103 : g == 7 ? 107 : -1; }, 4242, host) == 0);
  int got[2];
  std::memcpy(got, host.data() + (CMSG_DATA(c) - buf), sizeof got);
  CHECK(got[0] == 103);
  CHECK(got[1] == 107);
  // A descriptor without a host one (an eventfd): EBADF.
  CHECK(control_to_host(buf, [](int g) { return g == 3 ? 103 : -1; }, 4242, host) == -EBADF);
  // A length past the buffer: EINVAL, as Linux's CMSG_OK check.
  c->cmsg_len = sizeof buf + 8;
  CHECK(control_to_host(buf, [](int) { return 1; }, 4242, host) == -EINVAL);
  c->cmsg_len = CMSG_LEN(2 * sizeof(int));

  // Received: each host fd installed; one that cannot be is -1 and counted.
  std::vector<int> installed;
  const size_t failed = control_from_host(buf, [&](int h) {
    installed.push_back(h);
    return h == 3 ? 10 : -EMFILE;
  });
  CHECK(failed == 1);
  CHECK(installed == std::vector<int>{3, 7});
  std::memcpy(got, CMSG_DATA(c), sizeof got);
  CHECK(got[0] == 10);
  CHECK(got[1] == -1);

  // SCM_CREDENTIALS naming the guest's pid carry the host's.
  alignas(8) uint8_t cred[CMSG_SPACE(sizeof(ucred))] = {};
  auto* cc = reinterpret_cast<cmsghdr*>(cred);
  cc->cmsg_len = CMSG_LEN(sizeof(ucred));
  cc->cmsg_level = SOL_SOCKET;
  cc->cmsg_type = SCM_CREDENTIALS;
  ucred u{4242, 1000, 1000};
  std::memcpy(CMSG_DATA(cc), &u, sizeof u);
  CHECK(control_to_host(cred, [](int) { return -1; }, 4242, host) == 0);
  std::memcpy(&u, host.data() + (CMSG_DATA(cc) - cred), sizeof u);
  CHECK(u.pid == ::getpid());
}

TEST_CASE("sockets: with follow_fork a recorded child writes on a socketpair end it inherited, as natively") {
  for (const char* variant : {"x86_64", "x86_64-dyn"}) {
    const std::string prog = test::program_path(variant, "sockets");
    if (prog.empty()) continue;
    INFO(std::string(variant));
    const test::NativeRun native = test::run_native({prog, "fork"});
    REQUIRE(native.out == "fork: recv 14 \"from the child\", child status 0\n");
    test::TempDir dir(std::string("sockets-follow-fork-") + variant);
    RecordOptions o = test::capture_options({prog, "fork"}, dir.file("p.ucir"));
    o.follow_fork = true;
    o.notice = [](const std::string&) {};
    const test::HostStdoutRun run = test::record_with_host_stdout(o, true);
    test::check_clean(run.sum);
    CHECK(run.sum.captured_stdout == native.out);
    size_t traces = 0;
    for (const auto& e : fs::directory_iterator(dir.path)) {
      ++traces;
      auto d = test::read_trace(e.path().string());
      CHECK_MESSAGE(d.ok(), e.path().string() << ": " << test::error_text(d));
    }
    CHECK(traces == 2);  // the parent's and the child's
  }
}
