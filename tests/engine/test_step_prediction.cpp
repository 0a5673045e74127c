// Index version 11's step stream: pcs and sizes as the chunk's earlier
// visits of the pc predict (engine/step_pc_memo.h), steps whose effects
// are one to three short register effects without a length byte, and
// register deltas from the value before the last. Round trips, what they
// cost, and corrupt streams refused (by the decoder, and by the index with
// the blob's offset).
#include <doctest/doctest.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

#include "../fuzz/index_checksum_fixup.h"
#include "engine/chunk_steps.h"
#include "engine/index_file.h"
#include "engine/step_codec.h"
#include "temp_synthetic_trace.h"

// A namespace of its own: CI's unity build compiles it with its suite's other files.
namespace test_step_prediction {

using namespace ttd;

namespace {
const ArchDesc& x64() { return arch_desc(ArchId::X86_64); }

struct Reg {
  uint16_t no;
  uint64_t value;
};
struct Step {
  uint64_t pc;
  uint32_t size;
  std::vector<Reg> regs;
  uint64_t write_addr = 0;  // a one-byte write when set
};

std::vector<uint8_t> encode(StepEncoder& enc, const std::vector<Step>& steps) {
  enc.reset();
  enc.out().clear();
  for (const Step& s : steps) {
    enc.begin_step(0, 1, s.pc, s.size, fmt::StepKind::Instruction);
    for (const Reg& r : s.regs) {
      uint8_t b[8];
      std::memcpy(b, &r.value, 8);
      enc.reg(0, r.no, b);
    }
    if (s.write_addr) {
      const uint8_t v = 7;
      enc.mem_write(1, s.write_addr, {&v, 1});
    }
  }
  enc.end_step();
  return {enc.out().data(), enc.out().data() + enc.out().size()};
}

struct Collect : EffectVisitor {
  std::vector<Reg> regs;
  std::vector<uint64_t> writes;
  void reg(uint32_t, uint16_t no, const uint8_t* v, uint32_t len) override {
    uint64_t x = 0;
    std::memcpy(&x, v, std::min<uint32_t>(len, 8));
    regs.push_back({no, x});
  }
  void mem_write(uint64_t, uint64_t addr, const uint8_t*, uint64_t) override { writes.push_back(addr); }
};

// Decodes and compares with what was encoded; false if the decoder refused.
bool round_trip(const std::vector<uint8_t>& bytes, const std::vector<Step>& steps) {
  StepDecoder dec(x64(), bytes.data(), bytes.size());
  DecodedStep d;
  size_t i = 0;
  while (dec.next(d)) {
    REQUIRE(i < steps.size());
    CHECK(d.pc == steps[i].pc);
    CHECK(d.size == steps[i].size);
    Collect c;
    if (!dec.effects(d, c, 1)) return false;
    REQUIRE(c.regs.size() == steps[i].regs.size());
    for (size_t k = 0; k < c.regs.size(); ++k) {
      CHECK(c.regs[k].no == steps[i].regs[k].no);
      CHECK(c.regs[k].value == steps[i].regs[k].value);
    }
    CHECK(c.writes.size() == (steps[i].write_addr ? 1u : 0u));
    ++i;
  }
  if (!dec.ok()) return false;
  CHECK(i == steps.size());
  return true;
}

// A loop of four instructions of different sizes whose last one branches
// back, `iterations` times, then falls through once.
std::vector<Step> loop(int iterations) {
  std::vector<Step> s;
  const uint64_t top = 0x401000;
  const uint32_t sizes[4] = {3, 5, 2, 6};
  for (int it = 0; it < iterations; ++it) {
    uint64_t pc = top;
    for (uint32_t k = 0; k < 4; ++k) {
      s.push_back({pc, sizes[k], {}});
      pc += sizes[k];
    }
  }
  s.push_back({top + 16, 4, {}});
  return s;
}
}  // namespace

TEST_CASE("step prediction: a loop's pcs, sizes and taken branch cost the header byte only") {
  StepEncoder enc(x64());
  const std::vector<Step> steps = loop(100);
  const std::vector<uint8_t> bytes = encode(enc, steps);
  REQUIRE(round_trip(bytes, steps));
  // The first iteration pays its sizes and the first branch; the second
  // iteration's branch is predicted, so is everything after but the final
  // fall-through (one pc delta).
  CHECK(bytes.size() <= steps.size() + 16);
}

TEST_CASE("step prediction: every chunk decodes alone, a reused encoder predicts nothing from the chunk before") {
  StepEncoder enc(x64());
  const std::vector<Step> first = loop(10);
  REQUIRE(round_trip(encode(enc, first), first));
  // Same pcs, other sizes and another branch target: a stale memo would
  // mark them predicted and a fresh decoder would decode other values.
  std::vector<Step> second;
  for (int it = 0; it < 5; ++it)
    for (uint64_t pc = 0x401000; pc < 0x401010; pc += 4) second.push_back({pc, 4, {}});
  REQUIRE(round_trip(encode(enc, second), second));
  // pc collisions in the memo (a 1024-entry table) cost predictions only.
  std::vector<Step> spread;
  for (uint64_t i = 0; i < 5000; ++i) spread.push_back({0x500000 + (i * 7919 % 4099) * 16, uint32_t(1 + i % 15), {}});
  REQUIRE(round_trip(encode(enc, spread), spread));
}

TEST_CASE("step prediction: one to three register effects go without a length byte, more or mixed keep it") {
  StepEncoder enc(x64());
  const uint16_t rax = *x64().find("rax"), rbx = *x64().find("rbx"), rcx = *x64().find("rcx"),
                 rdx = *x64().find("rdx"), fs = *x64().find("fs_base");
  std::vector<Step> steps;
  uint64_t pc = 0x1000;
  auto add = [&](std::vector<Reg> regs, uint64_t write = 0) {
    steps.push_back({pc, 4, std::move(regs), write});
    pc += 4;
  };
  add({});
  add({{rax, 1}});
  add({{rax, 2}, {rbx, 3}});
  add({{rax, 3}, {rbx, 4}, {rcx, 5}});
  add({{rax, 4}, {rbx, 5}, {rcx, 6}, {rdx, 7}});
  add({{rax, 5}}, 0x7000);
  add({{fs, 0x7fff12345678}});  // a wide delta
  add({{rax, 6}});
  const std::vector<uint8_t> bytes = encode(enc, steps);
  REQUIRE(round_trip(bytes, steps));
  // Step 2 (one register): header, then tag and delta; no length byte.
  CHECK((bytes[0] >> kStepShortRegsShift) == 0);  // no effects
  // The header of step 2 follows step 1's (header, thread, pc (two
  // bytes), size: five bytes).
  CHECK((bytes[5] >> kStepShortRegsShift) == 1);
  CHECK((bytes[5] & kStepHasEffects) == 0);
  CHECK(bytes[6] == uint8_t(kRegTag | rax));
}

TEST_CASE("step prediction: a register alternating between a pointer and a counter costs two bytes a write") {
  StepEncoder enc(x64());
  const uint16_t rax = *x64().find("rax");
  std::vector<Step> steps;
  for (uint64_t i = 0; i < 200; ++i) steps.push_back({0x1000, 4, {{rax, i % 2 ? 0x7ffd12345678 + i : i}}});
  const std::vector<uint8_t> bytes = encode(enc, steps);
  REQUIRE(round_trip(bytes, steps));
  // header, tag, delta from the value before the last (a step back at the
  // same pc is predicted once seen).
  CHECK(bytes.size() <= 3 * steps.size() + 16);
}

TEST_CASE("step prediction: corrupt short register steps are refused") {
  auto ok = [](std::vector<uint8_t> s) {
    StepDecoder dec(x64(), s.data(), s.size());
    DecodedStep d;
    Collect c;
    while (dec.next(d))
      if (!dec.effects(d, c, 1)) return false;
    return dec.ok();
  };
  const uint8_t h = kStepInstruction | kStepFallThroughPc;
  // header, thread 0, size 4; then the effects.
  CHECK(ok({uint8_t(h | 1 << kStepShortRegsShift), 0, 4, uint8_t(kRegTag), 2}));
  CHECK(ok({uint8_t(h | 2 << kStepShortRegsShift), 0, 4, uint8_t(kRegTag), 2, uint8_t(kRegTag | kRegFromPrior | 1), 0}));
  CHECK(!ok({uint8_t(h | 2 << kStepShortRegsShift), 0, 4, uint8_t(kRegTag), 2}));  // one effect of two
  CHECK(!ok({uint8_t(h | 1 << kStepShortRegsShift), 0, 4, uint8_t(kRegTag), 0x80}));  // delta cut short
  CHECK(!ok({uint8_t(h | 1 << kStepShortRegsShift), 0, 4, uint8_t(kAccessTag), 0}));  // not a register
  CHECK(!ok({uint8_t(h | kStepHasEffects | 1 << kStepShortRegsShift), 0, 4, 2, uint8_t(kRegTag), 2}));  // both forms
  CHECK(!ok({uint8_t(h | 1 << kStepShortRegsShift), 0, 4, uint8_t(kRegTag + 62), 2}));  // x86-64 has 60 registers
}

namespace {
std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}
}  // namespace

TEST_CASE("step prediction: a crafted stream behind correct checksums is an error naming the index, chunk and offset") {
  test::TempSynthTrace tt(test::make_synthetic(500, 1, 3));
  const std::string index_path = tt.path + ".ttdidx";
  {
    auto t = Trace::open(tt.path, tt.options(64));
    REQUIRE(t.ok());
  }
  std::vector<uint8_t> f = read_file(index_path);
  // Chunk 3's stream: a step claiming a short register effect that is a
  // memory access tag.
  // header, thread 0, pc delta 0, size 4, then a memory access tag.
  const std::vector<uint8_t> bad = {uint8_t(kStepInstruction | 1 << kStepShortRegsShift), 0, 0, 4, uint8_t(kAccessTag), 0};
  const uint64_t at = f.size();
  f.insert(f.end(), bad.begin(), bad.end());
  int calls = 0;
  fuzz::fix_up_index_checksums(f, [&](IndexTable t, uint64_t entry, BlobRef& ref) {
    if (t != IndexTable::Chunks || entry != 3 || calls++ != 0) return;  // the stream, not the keyframe
    ref.offset = at;
    ref.size = ref.raw_size = uint32_t(bad.size());
  });
  std::ofstream(index_path, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(f.data()), long(f.size()));
  auto t = Trace::open(tt.path, tt.options(64));
  REQUIRE(t.ok());
  Status s = (*t)->for_each_step(3 * 64, 4 * 64, [](const StepRecord&) { return true; });
  REQUIRE(!s.ok());
  const std::string msg = s.error().to_string();
  CHECK(msg.find(index_path) != std::string::npos);
  CHECK(msg.find("chunk 3") != std::string::npos);
  CHECK(msg.find("at byte " + std::to_string(at)) != std::string::npos);
  CHECK(msg.find("step stream malformed") != std::string::npos);
  // Steps of other chunks still decode.
  CHECK((*t)->for_each_step(0, 64, [](const StepRecord&) { return true; }).ok());
}

}  // namespace test_step_prediction
