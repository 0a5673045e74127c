// The formats' one file reader (formats/common/file_window.h): windowed
// sequential reads, growth for a big request and back, seeks, and the
// errors (file, offset) for a file that ends early, a range past its end,
// a directory and a missing file. Inputs are written here, at run time.
#include <doctest/doctest.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "formats/common/file_window.h"

using ttd::fmt::FileWindow;

namespace {

class TempFile {
 public:
  explicit TempFile(const std::string& contents) {
    static std::atomic<int> counter{0};
    path_ = (std::filesystem::temp_directory_path() /
             ("ttd_file_window_" + std::to_string(getpid()) + "_" + std::to_string(counter++)))
                .string();
    std::ofstream(path_, std::ios::binary) << contents;
  }
  ~TempFile() { std::filesystem::remove_all(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Bytes 0, 1, 2, ... 255, 0, 1, ...: every offset's byte is known.
std::string counting(size_t n) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) s[i] = char(i & 0xff);
  return s;
}

bool bytes_at(const uint8_t* p, uint64_t offset, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (p[i] != uint8_t((offset + i) & 0xff)) return false;
  return true;
}

}  // namespace

TEST_CASE("file window: records across a small window, offsets, the end") {
  TempFile f(counting(1000));
  auto w = FileWindow::open(f.path(), 64);
  REQUIRE(w.ok());
  CHECK(w->file_size() == 1000);
  CHECK(w->regular());
  uint64_t at = 0;
  // 7-byte records: they straddle every window boundary at some point.
  while (at + 7 <= 1000) {
    auto got = w->ensure(7);
    REQUIRE(got.ok());
    REQUIRE(got.value());
    CHECK(w->offset() == at);
    REQUIRE(bytes_at(w->data(), at, 7));
    w->consume(7);
    at += 7;
  }
  CHECK(w->capacity() == 64);  // never grew: no request was bigger
  auto tail = w->ensure(7);
  REQUIRE(tail.ok());
  CHECK_FALSE(tail.value());  // the end: what is left is shorter
  CHECK(w->available() == 1000 - at);
  CHECK(bytes_at(w->data(), at, w->available()));
  CHECK(w->remaining() == 1000 - at);
  w->consume(w->available());
  CHECK(w->at_end());
  auto none = w->ensure(1);
  REQUIRE(none.ok());
  CHECK_FALSE(none.value());
}

TEST_CASE("file window: a request bigger than the window grows it for that request only") {
  TempFile f(counting(5000));
  auto w = FileWindow::open(f.path(), 64);
  REQUIRE(w.ok());
  w->skip(10);
  auto big = w->ensure(3000);
  REQUIRE(big.ok());
  REQUIRE(big.value());
  CHECK(w->capacity() >= 3000);
  CHECK(bytes_at(w->data(), 10, 3000));
  w->consume(3000);
  w->skip(1000);  // past the window: the next read starts there
  CHECK(w->offset() == 4010);
  auto small = w->ensure(8);
  REQUIRE(small.ok());
  REQUIRE(small.value());
  CHECK(w->capacity() == 64);  // back to the window
  CHECK(bytes_at(w->data(), 4010, 8));
}

TEST_CASE("file window: a hostile length never sizes the buffer beyond the file") {
  TempFile f(counting(100));
  auto w = FileWindow::open(f.path(), 64);
  REQUIRE(w.ok());
  auto got = w->ensure(size_t(1) << 40);  // 1 TiB: would throw bad_alloc if honoured
  REQUIRE(got.ok());
  CHECK_FALSE(got.value());
  CHECK(w->available() == 100);
  CHECK(w->capacity() <= 128);
}

TEST_CASE("file window: views and seeks, both ways") {
  TempFile f(counting(4096));
  auto w = FileWindow::open(f.path(), 256);
  REQUIRE(w.ok());
  for (uint64_t off : {0ull, 100ull, 3000ull, 50ull, 4000ull, 4095ull}) {
    auto v = w->view(off, 1);
    REQUIRE(v.ok());
    CHECK(bytes_at(*v, off, 1));
    CHECK(w->offset() == off);
  }
  auto v = w->view(3990, 106);  // up to the last byte
  REQUIRE(v.ok());
  CHECK(bytes_at(*v, 3990, 106));

  auto past = w->view(4000, 200);
  REQUIRE_FALSE(past.ok());
  CHECK(past.error().where == f.path());
  CHECK(past.error().message == "200 bytes past the end of the 4096-byte file");
  CHECK(past.error().offset == 4000u);
}

TEST_CASE("file window: a file cut short while it is read is an error at the offset where it ends") {
  TempFile f(counting(4096));
  auto w = FileWindow::open(f.path(), 256);
  REQUIRE(w.ok());
  REQUIRE(w->ensure(16).value());
  std::filesystem::resize_file(f.path(), 1000);  // size at open was 4096
  auto v = w->view(900, 300);
  REQUIRE_FALSE(v.ok());
  CHECK(v.error().message == "file ended early (truncated while reading?)");
  CHECK(v.error().offset == 1000u);
  // ensure() says "the end" rather than an error: the caller names the record.
  w->seek(990);
  auto e = w->ensure(20);
  REQUIRE(e.ok());
  CHECK_FALSE(e.value());
  CHECK(w->available() == 10);
}

TEST_CASE("file window: a directory, a missing file, and a move") {
  TempFile dir("");
  std::filesystem::remove(dir.path());
  std::filesystem::create_directory(dir.path());
  auto d = FileWindow::open(dir.path(), 64, "a Tenet trace file");
  REQUIRE_FALSE(d.ok());
  CHECK(d.error().message == "is a directory, not a Tenet trace file");

  auto m = FileWindow::open("/nonexistent/trace.bin");
  REQUIRE_FALSE(m.ok());
  CHECK(m.error().where == "/nonexistent/trace.bin");
  CHECK(m.error().message.find("cannot open file") == 0);

  TempFile f(counting(300));
  auto w = FileWindow::open(f.path(), 64);
  REQUIRE(w.ok());
  REQUIRE(w->ensure(10).value());
  w->consume(5);
  FileWindow moved = std::move(*w);
  CHECK(moved.offset() == 5);
  auto v = moved.view(200, 50);
  REQUIRE(v.ok());
  CHECK(bytes_at(*v, 200, 50));
}

TEST_CASE("file window: a pipe is read to its end") {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  const std::string text = counting(500);
  REQUIRE(::write(fds[1], text.data(), text.size()) == ssize_t(text.size()));
  ::close(fds[1]);
  auto w = FileWindow::open("/proc/self/fd/" + std::to_string(fds[0]), 64);
  REQUIRE(w.ok());
  CHECK_FALSE(w->regular());
  uint64_t total = 0;
  for (;;) {
    auto got = w->ensure(50);
    REQUIRE(got.ok());
    if (!got.value()) {
      total += w->available();
      break;
    }
    CHECK(bytes_at(w->data(), total, 50));
    w->consume(50);
    total += 50;
  }
  CHECK(total == 500);
  ::close(fds[0]);
}
