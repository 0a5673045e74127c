// The seek replay's two shortcuts in the step decoder (engine/cursor.cpp):
// a decoder reset onto another chunk reads it exactly as a fresh decoder,
// and register writes deferred to flush_registers() leave the same final
// registers as writes handed over one by one.
#include <doctest/doctest.h>

#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/step_codec.h"

// A namespace of its own: CI's unity build compiles it with its suite's other files.
namespace test_seek_replay {

using namespace ttd;

namespace {
const ArchDesc& x64() { return arch_desc(ArchId::X86_64); }
uint16_t reg_no(const char* name) { return *x64().find(name); }

void put(StepEncoder& enc, uint32_t tidx, uint16_t reg, uint64_t v) {
  uint8_t bytes[8];
  std::memcpy(bytes, &v, 8);
  enc.reg(tidx, reg, {bytes, x64().regs[reg].bytes()});
}

// Every effect as text, in order, and the final registers.
struct Record : EffectVisitor {
  std::vector<std::string> log;
  std::map<std::pair<uint32_t, uint16_t>, std::optional<uint64_t>> regs;  // nullopt: unknown
  void reg(uint32_t tidx, uint16_t reg, const uint8_t* value, uint32_t len) override {
    uint64_t v = 0;
    std::memcpy(&v, value, std::min<uint32_t>(len, 8));
    regs[{tidx, reg}] = v;
    log.push_back("reg " + std::to_string(tidx) + " " + std::to_string(reg) + " " + std::to_string(v));
  }
  void reg_unknown(uint32_t tidx, uint16_t reg) override {
    regs[{tidx, reg}] = std::nullopt;
    log.push_back("unknown " + std::to_string(tidx) + " " + std::to_string(reg));
  }
  void mem_write(uint64_t pid, uint64_t addr, const uint8_t* bytes, uint64_t len) override {
    log.push_back("write " + std::to_string(pid) + " " + std::to_string(addr) + " " +
                  std::string(reinterpret_cast<const char*>(bytes), len));
  }
};

using Bytes = std::vector<uint8_t>;
Bytes take(StepEncoder& enc) { return {enc.out().data(), enc.out().data() + enc.out().size()}; }

// A chunk with everything the decoder keeps history of: register deltas of
// several threads (large values), memory accesses near each other, small
// written values, predicted pcs and sizes, unsigned attributes.
Bytes busy_chunk(StepEncoder& enc, uint64_t seed) {
  enc.reset();
  enc.out().clear();
  const uint16_t rax = reg_no("rax"), rbx = reg_no("rbx");
  for (uint64_t i = 0; i < 200; ++i) {
    const uint32_t tidx = uint32_t((i / 7 + seed) % 3);
    // The same pcs in every chunk, with another size per chunk: a pc
    // memo left over from the chunk before would predict the wrong one.
    const uint32_t size = uint32_t(2 + seed);
    const uint64_t pc = 0x401000 + (i % 13) * 8;
    enc.begin_step(tidx, 1, pc, size, fmt::StepKind::Instruction);
    put(enc, tidx, rax, 0x7fff00000000 + seed * 0x1000 + i);
    if (i % 3 == 0) put(enc, tidx, rbx, seed << 40 | i);
    const uint8_t data[4] = {uint8_t(i), uint8_t(seed), 3, 4};
    if (i % 2 == 0) enc.mem_write(1, 0x600000 + i * 8 + seed, {data, 4});
    if (i % 5 == 0) enc.attr_u64(1, 1000 * seed + i);
  }
  enc.end_step();
  return take(enc);
}

std::vector<std::string> decode_all(StepDecoder& dec) {
  Record r;
  DecodedStep s;
  std::vector<std::pair<uint32_t, fmt::AttrValue>> attrs;
  while (dec.next(s)) {
    r.log.push_back("step " + std::to_string(s.tidx) + " " + std::to_string(s.pc) + " " + std::to_string(s.size));
    REQUIRE(dec.effects(s, r, 1));
    REQUIRE(dec.attrs(s, attrs));
    for (const auto& [k, v] : attrs)
      if (auto* u = std::get_if<uint64_t>(&v)) r.log.push_back("attr " + std::to_string(k) + " " + std::to_string(*u));
    attrs.clear();
  }
  REQUIRE(dec.ok());
  return r.log;
}
}  // namespace

TEST_CASE("seek replay: a decoder reset onto another chunk reads it as a fresh decoder does") {
  StepEncoder enc(x64());
  const Bytes a = busy_chunk(enc, 1), b = busy_chunk(enc, 2);
  StepDecoder fresh(x64(), b.data(), b.size());
  const std::vector<std::string> want = decode_all(fresh);
  REQUIRE(want.size() > 400);

  // Decoded a to its end, then b: every history (registers, access ends,
  // pc memo, attributes) must start over.
  StepDecoder reused(x64(), a.data(), a.size());
  decode_all(reused);
  reused.reset(b.data(), b.size());
  CHECK(decode_all(reused) == want);

  // Reset half-way through a, and after a corrupt stream.
  StepDecoder half(x64(), a.data(), a.size());
  DecodedStep s;
  Record ignore;
  for (int i = 0; i < 50 && half.next(s); ++i) REQUIRE(half.effects(s, ignore, 1));
  half.reset(b.data(), b.size());
  CHECK(decode_all(half) == want);
  const uint8_t junk[3] = {0xff, 0xff, 0xff};
  StepDecoder broken(x64(), junk, sizeof junk);
  while (broken.next(s)) {
  }
  CHECK_FALSE(broken.ok());
  broken.reset(b.data(), b.size());
  CHECK(decode_all(broken) == want);
}

TEST_CASE("seek replay: deferred registers end as registers handed over one by one") {
  StepEncoder enc(x64());
  enc.reset();
  enc.out().clear();
  const uint16_t rax = reg_no("rax"), rbx = reg_no("rbx"), rcx = reg_no("rcx"), pc = x64().pc_index;
  const uint16_t xmm0 = reg_no("xmm0");  // 16 bytes: never deferred
  uint8_t wide[16];
  for (int i = 0; i < 16; ++i) wide[i] = uint8_t(i + 1);
  // Thread 0: rax written, then unknown (must end unknown); rbx unknown,
  // then written (must end known); rcx written twice (last wins). Thread 1
  // written from thread 0's step (a context switch inside the effects).
  enc.begin_step(0, 1, 0x1000, 4, fmt::StepKind::Instruction);
  put(enc, 0, rax, 5);
  put(enc, 0, rcx, 1);
  enc.reg_unknown(0, rbx);
  enc.begin_step(0, 1, 0x1004, 4, fmt::StepKind::Instruction);
  enc.reg_unknown(0, rax);
  put(enc, 0, rbx, 0x7fffffffe000);
  put(enc, 1, rax, 42);
  enc.reg(0, xmm0, {wide, 16});
  enc.begin_step(1, 1, 0x2000, 2, fmt::StepKind::Instruction);
  put(enc, 1, rcx, 9);
  put(enc, 1, pc, 0x2002);
  enc.begin_step(0, 1, 0x1008, 4, fmt::StepKind::Instruction);
  put(enc, 0, rcx, 0x123456789);
  const uint8_t data[3] = {'a', 'b', 'c'};
  enc.mem_write(1, 0x5000, {data, 3});
  enc.end_step();
  const Bytes chunk = take(enc);

  auto replay = [&](bool defer, size_t& handed_before_flush) {
    StepDecoder dec(x64(), chunk.data(), chunk.size());
    if (defer) dec.defer_registers(pc);
    Record r;
    DecodedStep s;
    while (dec.next(s)) REQUIRE(dec.effects(s, r, 1));
    REQUIRE(dec.ok());
    handed_before_flush = r.log.size();
    dec.flush_registers(r);
    dec.flush_registers(r);  // a second flush hands nothing over
    return r;
  };
  size_t n_now = 0, n_deferred = 0;
  const Record now = replay(false, n_now), deferred = replay(true, n_deferred);
  CHECK(deferred.regs == now.regs);
  CHECK(now.regs.at({0, rax}) == std::nullopt);
  CHECK(now.regs.at({0, rbx}) == 0x7fffffffe000u);
  CHECK(now.regs.at({0, rcx}) == 0x123456789u);
  CHECK(now.regs.at({1, rax}) == 42u);
  // Deferred: only the unknown markers, the wide register, the pc and the
  // memory write went over during the replay; rbx, rcx (two threads) and
  // rax of thread 1 once each at the flush.
  CHECK(n_deferred == 5);
  CHECK(deferred.log.size() == n_deferred + 4);
  CHECK(n_now == now.log.size());
  CHECK(n_now == 11);
}

}  // namespace test_seek_replay
