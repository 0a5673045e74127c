// libFuzzer target: arbitrary bytes as a REVEN rvnblock trace (an SQLite
// database), through the registry sniffer, the reader and a sink that
// checks what it is given. SQLite answers a damaged file with an error;
// what gets through is what matters here: mutated cells (block bytes,
// instruction counts and indices, transition ids, modes, interrupt rows)
// reach the reader's own parsing. Nothing may crash, hang or grow without
// bound; bad input ends in an Error naming the file.
// Seeds: tests/fuzz/corpus/rvnblock/ (the rvnblock trace and the REVEN
// metadata databases of tests/data/rvnblock).
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>

#include "formats/rvnblock/rvnblock_format.h"
#include "formats/rvnblock/rvnblock_reader.h"
#include "tests/fuzz/fuzz_support.h"  // ContractSink, fail

namespace {

using namespace ttd;

// SQLite resolves symbolic links in a database's path, so the memfd path
// the other targets use (/proc/self/fd/N) names a file that does not
// exist: the input goes to a real file, in /dev/shm (memory) when it exists.
std::string write_input(const uint8_t* data, size_t size) {
  static const std::string path = [] {
    const char* dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    return std::string(dir) + "/fuzz_rvnblock." + std::to_string(getpid()) + ".sqlite";
  }();
  static const bool removed_at_exit = [] { return std::atexit([] { std::remove(path.c_str()); }) == 0; }();
  (void)removed_at_exit;
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f || (size && std::fwrite(data, 1, size, f) != size) || std::fclose(f) != 0) std::abort();
  return path;
}

// Steps numbered from 0 by transition, one thread; code bytes as writes.
class CheckingSink : public fuzz::ContractSink {
 public:
  void step(const fmt::StepInfo& s) override {
    note_step();
    if (s.tid != fmt::rvnblock::kThreadId || s.pid != fmt::rvnblock::kProcessId) fuzz::fail("bad thread");
  }
  void reg(uint64_t, uint16_t reg, std::span<const uint8_t> value) override {
    if (!began_ || reg >= arch_->regs.size() || value.size() != arch_->regs[reg].bytes()) fuzz::fail("bad reg");
  }
  void mem_write(uint64_t, uint64_t addr, std::span<const uint8_t> bytes) override {
    if (!began_ || bytes.empty() || addr + (bytes.size() - 1) < addr) fuzz::fail("bad write");
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = write_input(data, size);

  fmt::FormatEntry entry = fmt::rvnblock_format();
  (void)entry.sniff(path, std::span<const uint8_t>(data, size < 4096 ? size : 4096));

  auto reader = fmt::rvnblock::RvnblockReader::open(path);
  if (!reader) {
    if (reader.error().where != path) fuzz::fail("error does not name the file");
    return 0;
  }
  (void)reader.value()->info();
  CheckingSink sink;
  Status s = reader.value()->read(sink, nullptr);
  if (s.ok() != sink.ended()) fuzz::fail("end() and success disagree");
  if (!s.ok() && s.error().where != path) fuzz::fail("error does not name the file");
  return 0;
}
