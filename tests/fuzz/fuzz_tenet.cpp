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

#include "tests/fuzz/fuzz_support.h"
#include "formats/tenet/tenet_format.h"
#include "formats/tenet/tenet_reader.h"

namespace {

using namespace ttd;

// Checks the sink contract: begin first, effects sized to their register,
// steps numbered, end only once.
class CheckingSink : public fuzz::ContractSink {
 public:
  CheckingSink() : ContractSink(/*require_steps=*/true) {}
  void step(const fmt::StepInfo& s) override {
    note_step();
    if (s.tid != 1 || s.pid != 1 || s.kind != fmt::StepKind::Instruction) fuzz::fail("bad step");
    if (arch_->ptr_size < 8 && (s.pc >> (8 * arch_->ptr_size)) != 0) fuzz::fail("pc wider than the arch");
  }
  void reg(uint64_t tid, uint16_t reg, std::span<const uint8_t> value) override {
    if (!began_ || reg >= arch_->regs.size() || value.size() != arch_->regs[reg].bytes()) fuzz::fail("bad reg");
    if (reg == arch_->pc_index) fuzz::fail("pc sent as a register effect");
  }
  void mem_write(uint64_t, uint64_t addr, std::span<const uint8_t> bytes) override {
    if (!began_ || bytes.empty() || addr + (bytes.size() - 1) < addr) fuzz::fail("bad write");
  }
  void mem_read(uint64_t, uint64_t addr, uint32_t size, std::span<const uint8_t> bytes) override {
    if (!began_ || steps_ == 0 || size == 0 || (!bytes.empty() && bytes.size() != size)) fuzz::fail("bad read");
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const fuzz::InputFile file("fuzz_tenet");
  const std::string path = file.write(data, size);

  fmt::FormatEntry entry = fmt::tenet_format();
  (void)entry.sniff(path, std::span<const uint8_t>(data, size < 4096 ? size : 4096));

  auto reader = fmt::tenet::TenetReader::open(path);
  if (!reader) {
    if (reader.error().where != path) fuzz::fail("error does not name the file");
    return 0;
  }
  CheckingSink sink;
  Status s = reader.value()->read(sink, nullptr);
  if (s.ok() != sink.ended()) fuzz::fail("end() and success disagree");
  if (!s.ok()) {
    const Error& e = s.error();
    if (e.where != path) fuzz::fail("error does not name the file");
    if (e.offset && !e.offset_is_line) fuzz::fail("error gives a byte offset, not a line");
  }
  return 0;
}
