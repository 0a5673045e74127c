// libFuzzer target: arbitrary bytes as a Tenet text trace, through the
// registry sniffer, the reader and a sink that checks what it is given.
// Nothing may crash, hang or grow without bound; bad input must end in an
// Error naming the file and a line.
//
// The reader takes paths, so each input goes to a memfd and is read through
// /proc/self/fd/N (no disk traffic). Needs ttd_fmt_tenet.
// Seeds: tests/fuzz/corpus/tenet/ (Pin- and QEMU-style traces of x86, x86-64,
// arm32 and aarch64, syntax variations, and broken lines).
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <string>

#include "formats/tenet/tenet_format.h"
#include "formats/tenet/tenet_reader.h"

namespace {

using namespace ttd;

[[noreturn]] void fail(const char* what) {
  __builtin_trap();
  (void)what;
}

// Checks the sink contract: begin first, effects sized to their register,
// steps numbered, end only once.
class CheckingSink : public fmt::TraceSink {
 public:
  void begin(const fmt::TraceInfo& info) override {
    if (began_) fail("begin twice");
    began_ = true;
    arch_ = &arch_desc(info.arch);
  }
  void step(const fmt::StepInfo& s) override {
    if (!began_ || ended_) fail("step outside begin/end");
    if (s.tid != 1 || s.pid != 1 || s.kind != fmt::StepKind::Instruction) fail("bad step");
    if (arch_->ptr_size < 8 && (s.pc >> (8 * arch_->ptr_size)) != 0) fail("pc wider than the arch");
    ++steps_;
  }
  void reg(uint64_t tid, uint16_t reg, std::span<const uint8_t> value) override {
    if (!began_ || reg >= arch_->regs.size() || value.size() != arch_->regs[reg].bytes()) fail("bad reg");
    if (reg == arch_->pc_index) fail("pc sent as a register effect");
  }
  void mem_write(uint64_t, uint64_t addr, std::span<const uint8_t> bytes) override {
    if (!began_ || bytes.empty() || addr + (bytes.size() - 1) < addr) fail("bad write");
  }
  void mem_read(uint64_t, uint64_t addr, uint32_t size, std::span<const uint8_t> bytes) override {
    if (!began_ || steps_ == 0 || size == 0 || (!bytes.empty() && bytes.size() != size)) fail("bad read");
  }
  void end() override {
    if (ended_ || steps_ == 0) fail("bad end");
    ended_ = true;
  }
  bool ended() const { return ended_; }

 private:
  const ArchDesc* arch_ = nullptr;
  bool began_ = false, ended_ = false;
  uint64_t steps_ = 0;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const int fd = memfd_create("fuzz_tenet", MFD_CLOEXEC);
  if (fd < 0) std::abort();
  if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != ssize_t(size)) std::abort();
  const std::string path = "/proc/self/fd/" + std::to_string(fd);

  fmt::FormatEntry entry = fmt::tenet_format();
  (void)entry.sniff(path, std::span<const uint8_t>(data, size < 4096 ? size : 4096));

  auto reader = fmt::tenet::TenetReader::open(path);
  if (!reader) {
    if (reader.error().where != path) fail("error does not name the file");
    return 0;
  }
  CheckingSink sink;
  Status s = reader.value()->read(sink, nullptr);
  if (s.ok() != sink.ended()) fail("end() and success disagree");
  if (!s.ok()) {
    const Error& e = s.error();
    if (e.where != path) fail("error does not name the file");
    if (e.offset && !e.offset_is_line) fail("error gives a byte offset, not a line");
  }
  return 0;
}
