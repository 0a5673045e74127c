// libFuzzer target: arbitrary bytes as a UMTracer indexed trace directory
// (the format is a directory of tables, so each input is unpacked into the
// files of a scratch directory: tests/formats_umtrace/umtrace_fuzz_input.h),
// through the registry sniffer, the reader and a sink that checks what it
// is given. Nothing may crash, hang or grow without bound; bad input must
// end in an Error naming a file.
// Seeds: tests/fuzz/corpus/umtrace/ (written by the umtrace tests with
// TTD_UMTRACE_SEED_DIR set: Unicorn-traced x86-64 and i386 runs, a gap, a
// hand-made trace with every record type).
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <span>
#include <string>

#include "tests/fuzz/fuzz_support.h"
#include "formats/umtrace/umtrace_format.h"
#include "formats/umtrace/umtrace_reader.h"
#include "tests/formats_umtrace/umtrace_fuzz_input.h"

namespace {

using namespace ttd;

// Checks the sink contract: begin first, registers in range and no wider
// than the register, steps only after begin, end once.
class CheckingSink : public fuzz::ContractSink {
 public:
  void step(const fmt::StepInfo& s) override {
    note_step();
    if (s.tid == 0) fuzz::fail("thread id 0");
  }
  void reg(uint64_t, uint16_t r, std::span<const uint8_t> v) override {
    if (!arch_ || r >= arch_->regs.size() || v.size() > arch_->regs[r].bytes()) fuzz::fail("bad register effect");
  }
  void reg_unknown(uint64_t, uint16_t r) override {
    if (!arch_ || r >= arch_->regs.size()) fuzz::fail("bad register");
  }
  void mem_write(uint64_t, uint64_t, std::span<const uint8_t> b) override { touched_ += b.size(); }
  void mem_read(uint64_t, uint64_t, uint32_t size, std::span<const uint8_t> b) override {
    if (!b.empty() && b.size() != size) fuzz::fail("read value of the wrong size");
  }

 private:
  uint64_t touched_ = 0;
};

const std::string& scratch_dir() {
  static const std::string dir = [] {
    std::string base = std::filesystem::exists("/dev/shm") ? "/dev/shm" : std::filesystem::temp_directory_path().string();
    std::string d = base + "/ttd_fuzz_umtrace_" + std::to_string(getpid());
    std::filesystem::create_directories(d);
    return d;
  }();
  // Gone when libFuzzer ends the run (it exits normally at -max_total_time).
  static const bool removed_at_exit = [] {
    return std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(dir, ec);
    }) == 0;
  }();
  (void)removed_at_exit;
  return dir;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& dir = scratch_dir();
  ttd::test::unpack_to_dir({data, size}, dir);
  const fmt::FormatEntry entry = fmt::umtrace_format();
  (void)entry.sniff(dir, {});
  auto reader = fmt::umtrace::UmtraceReader::open(dir);
  if (!reader) {
    if (reader.error().where.empty()) fuzz::fail("error without a file");
    return 0;
  }
  CheckingSink sink;
  auto s = (*reader)->read(sink, {});
  if (!s && s.error().where.empty()) fuzz::fail("error without a file");
  return 0;
}
