// libFuzzer target: arbitrary bytes as a TT6, TT6E or FULL trace (the first
// byte picks the variant: 0 TT6, 1 TT6E, 2 FULL; the rest is the file),
// through the sniffers, the readers and a sink that checks what it is
// given. Nothing may crash, hang or grow without bound; bad input must end
// in an Error naming the file and a byte offset.
//
// The readers take paths, so each input goes to a memfd read through
// /proc/self/fd/N. Needs ttd_fmt_tt6.
// Seeds: tests/fuzz/corpus/tt6/ (the Unicorn-traced guest's traces, cut to
// a few KiB, escape and trap-return sequences, broken records).
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <string>

#include "tests/fuzz/fuzz_support.h"
#include "formats/tt6/full_reader.h"
#include "formats/tt6/tt6_format.h"
#include "formats/tt6/tt6_reader.h"

namespace {

using namespace ttd;

// Checks the sink contract: begin first, steps of thread 1 with 32-bit pcs,
// effects sized to their register, no pc register effect, end only once.
class CheckingSink : public fuzz::ContractSink {
 public:
  CheckingSink() : ContractSink(/*require_steps=*/true) {}
  void begin(const fmt::TraceInfo& info) override {
    if (info.arch != ArchId::Ppc32) fuzz::fail("begin");
    ContractSink::begin(info);
  }
  void step(const fmt::StepInfo& s) override {
    note_step();
    if (s.tid != 1 || s.pid != 1 || (s.pc >> 32) != 0 || (s.pc & 3) != 0) fuzz::fail("bad step");
    if (s.size != 0 && s.size != 4) fuzz::fail("bad size");
  }
  void attr(std::string_view key, const fmt::AttrValue&) override {
    if (steps_ == 0 || key.empty()) fuzz::fail("attr before a step");
  }
  void reg(uint64_t tid, uint16_t reg, std::span<const uint8_t> value) override {
    if (!began_ || tid != 1 || reg >= arch_->regs.size() || value.size() != arch_->regs[reg].bytes()) fuzz::fail("bad reg");
    if (reg == arch_->pc_index) fuzz::fail("pc sent as a register effect");
  }
  void reg_unknown(uint64_t, uint16_t reg) override {
    if (!began_ || reg >= arch_->regs.size()) fuzz::fail("bad reg_unknown");
  }
  void mem_write(uint64_t, uint64_t addr, std::span<const uint8_t> bytes) override {
    if (!began_ || bytes.empty() || bytes.size() > 128 || addr + (bytes.size() - 1) < addr) fuzz::fail("bad write");
  }
  void mem_read(uint64_t, uint64_t, uint32_t size, std::span<const uint8_t> bytes) override {
    if (!began_ || steps_ == 0 || size == 0 || size > 128 || (!bytes.empty() && bytes.size() != size))
      fuzz::fail("bad read");
  }
  void mem_unknown(uint64_t, uint64_t, uint64_t size) override {
    if (!began_ || steps_ == 0 || size == 0 || size > 128) fuzz::fail("bad unknown");
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  static const fuzz::InputFile file("fuzz_tt6");
  const uint8_t variant = data[0] % 3;
  ++data;
  --size;
  const std::string path = file.write(data, size);

  const std::span<const uint8_t> head(data, size < 4096 ? size : 4096);
  for (const fmt::FormatEntry& e : {fmt::tt6_format(), fmt::tt6e_format(), fmt::tt6_full_format()})
    (void)e.sniff(path, head);

  std::unique_ptr<fmt::TraceReader> reader;
  if (variant == 2) {
    auto r = fmt::tt6::FullReader::open(path);
    if (!r) {
      if (r.error().where != path || !r.error().offset) fuzz::fail("open error without file and offset");
      return 0;
    }
    reader = std::move(r.value());
  } else {
    auto r = fmt::tt6::Tt6Reader::open(path, variant == 1 ? fmt::tt6::Variant::Tt6e : fmt::tt6::Variant::Tt6);
    if (!r) {
      if (r.error().where != path || !r.error().offset) fuzz::fail("open error without file and offset");
      return 0;
    }
    reader = std::move(r.value());
  }
  CheckingSink sink;
  Status s = reader->read(sink, nullptr);
  if (s.ok() != sink.ended()) fuzz::fail("end() and success disagree");
  if (!s.ok()) {
    const Error& e = s.error();
    if (e.where != path) fuzz::fail("error does not name the file");
    if (!e.offset || e.offset_is_line || *e.offset > size) fuzz::fail("error without a byte offset in the file");
  }
  return 0;
}
