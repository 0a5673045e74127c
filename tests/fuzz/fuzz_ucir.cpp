// libFuzzer target: arbitrary bytes as a usercorn UCIR trace, through the
// format's sniffer, the reader (header, snappy framing, op stream) and a
// sink that checks what it is given. Nothing may crash, hang or allocate
// without bound; bad input must end in an Error naming the file and a
// byte offset.
//
// The reader takes paths, so each input goes to a memfd read through
// /proc/self/fd/N (no disk traffic). Most mutations break the CRC, so a
// second pass re-frames the input's bytes after the header as one valid
// uncompressed chunk: that lets the fuzzer reach the op parser directly.
// Seeds: tests/fuzz/corpus/ucir/ (written by "test_ucir --write-seeds").
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <string>
#include <vector>

#include "tests/fuzz/fuzz_support.h"
#include "formats/common/step_batch.h"
#include "formats/ucir/crc32c.h"
#include "formats/ucir/ucir_format.h"
#include "formats/ucir/ucir_ops.h"
#include "formats/ucir/ucir_reader.h"

namespace {

using namespace ttd;


// Checks the sink contract: begin first, registers in range and no wider
// than the register, steps numbered, end once and only on success.
class CheckingSink : public fuzz::ContractSink {
 public:
  void step(const fmt::StepInfo& s) override {
    note_step();
    // Threads (ttd's extension): a frame's pid field + 1, at most 4096.
    if (s.tid < 1 || s.tid > fmt::ucir::kMaxUcirThreads || s.pid != 1) fuzz::fail("bad step thread");
  }
  void reg(uint64_t tid, uint16_t reg, std::span<const uint8_t> value) override {
    if (!began_ || reg >= arch_->regs.size() || value.empty() || value.size() > arch_->regs[reg].bytes())
      fuzz::fail("bad reg");
    // Only a thread keyframe sets a pc: a new thread's (never thread 1's).
    if (reg == arch_->pc_index && tid == 1) fuzz::fail("pc sent as a register effect");
    if (tid < 1 || tid > fmt::ucir::kMaxUcirThreads) fuzz::fail("bad reg thread");
  }
  void mem_write(uint64_t, uint64_t addr, std::span<const uint8_t> bytes) override {
    if (!began_ || (!bytes.empty() && addr + (bytes.size() - 1) < addr)) fuzz::fail("bad write");
  }
  void mem_read(uint64_t, uint64_t addr, uint32_t size, std::span<const uint8_t>) override {
    if (!began_ || (size > 0 && addr + (size - 1) < addr)) fuzz::fail("bad read");
  }
  void mem_map(uint64_t, uint64_t addr, uint64_t size, uint8_t, std::string_view) override {
    if (!began_ || (size > 0 && addr + (size - 1) < addr)) fuzz::fail("bad map");
  }
};

// The same checks through the step-batch path (the index builder's):
// each batch is made into the per-step calls it stands for.
class BatchCheckingSink : public CheckingSink, public fmt::BatchSink {
 public:
  void steps(const fmt::StepBatch& b) override {
    for (const fmt::BatchStep& s : b.steps())
      if (s.effects_end > b.effect_count()) fuzz::fail("batch step past its effects");
    fmt::send_one_by_one(b, *this);
  }
};

void run(const fuzz::InputFile& file, std::span<const uint8_t> bytes) {
  const std::string path = file.write(bytes.data(), bytes.size());
  (void)fmt::ucir_format().sniff(path, bytes.first(bytes.size() < 4096 ? bytes.size() : 4096));
  auto reader = fmt::UcirReader::open(path);
  if (!reader) {
    if (reader.error().where != path || !reader.error().offset) fuzz::fail("open error without file and offset");
    return;
  }
  CheckingSink sink;
  Status s = reader.value()->read(sink, nullptr);
  if (s.ok() != sink.ended()) fuzz::fail("end() and success disagree");
  if (!s.ok() && (s.error().where != path || !s.error().offset || s.error().offset_is_line))
    fuzz::fail("error without file and byte offset");
  BatchCheckingSink batched;
  Status b = reader.value()->read(batched, nullptr);
  if (b.ok() != s.ok() || b.ok() != batched.ended()) fuzz::fail("the batch path ends otherwise");
  if (!b.ok() && b.error().to_string() != s.error().to_string()) fuzz::fail("the batch path fails otherwise");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const fuzz::InputFile file("fuzz_ucir");
  run(file, {data, size});

  // Same bytes, re-framed: header (74 bytes) + stream identifier + one
  // uncompressed chunk with a correct CRC holding the rest.
  constexpr size_t kHeader = 74;
  if (size > kHeader && size - kHeader <= 65536) {
    std::vector<uint8_t> framed(data, data + kHeader);
    const uint8_t id[10] = {0xff, 0x06, 0x00, 0x00, 's', 'N', 'a', 'P', 'p', 'Y'};
    framed.insert(framed.end(), id, id + 10);
    const std::span<const uint8_t> ops(data + kHeader, size - kHeader);
    const uint32_t crc = fmt::crc32c_mask(fmt::crc32c(ops));
    const size_t len = ops.size() + 4;
    const uint8_t head[8] = {0x01, uint8_t(len), uint8_t(len >> 8), uint8_t(len >> 16),
                             uint8_t(crc), uint8_t(crc >> 8), uint8_t(crc >> 16), uint8_t(crc >> 24)};
    framed.insert(framed.end(), head, head + 8);
    framed.insert(framed.end(), ops.begin(), ops.end());
    run(file, framed);
  }
  return 0;
}
