// Memory accesses in the chunk stream (index version 6): one tag byte holds
// the kind, a size code and which of four recent access ends the address
// is coded from; small written values are varints. Every access must come
// back as it went in, whatever its size, value or address, and code and
// decoder must agree on the slots through near and far accesses.
#include <doctest/doctest.h>

#include <random>
#include <vector>

#include "engine/step_codec.h"

// A namespace of its own: CI's unity build compiles it with its suite's other files.
namespace test_step_accesses {

using namespace ttd;

namespace {
const ArchDesc& x64() { return arch_desc(ArchId::X86_64); }

enum class Op { Write, Read, ReadData, Unknown };
struct Access {
  Op op;
  uint64_t addr;
  std::vector<uint8_t> bytes;  // Write / ReadData: the data; else size bytes of nothing
  bool operator==(const Access&) const = default;
};

struct Collect : EffectVisitor {
  std::vector<Access> got;
  void reg(uint32_t, uint16_t, const uint8_t*, uint32_t) override {}
  void mem_write(uint64_t, uint64_t addr, const uint8_t* b, uint64_t n) override {
    got.push_back({Op::Write, addr, {b, b + n}});
  }
  void mem_read(uint64_t, uint64_t addr, uint64_t size, const uint8_t* b) override {
    if (b)
      got.push_back({Op::ReadData, addr, {b, b + size}});
    else
      got.push_back({Op::Read, addr, std::vector<uint8_t>(size)});
  }
  void mem_unknown(uint64_t, uint64_t addr, uint64_t size) override {
    got.push_back({Op::Unknown, addr, std::vector<uint8_t>(size)});
  }
};

// One step per access, falling through from one to the next.
std::vector<uint8_t> encode(const std::vector<Access>& v) {
  StepEncoder enc(x64());
  enc.reset();
  uint64_t pc = 0x401000;
  for (const Access& a : v) {
    enc.begin_step(0, 1, pc, 4, fmt::StepKind::Instruction);
    pc += 4;
    switch (a.op) {
      case Op::Write: enc.mem_write(1, a.addr, a.bytes); break;
      case Op::Read: enc.mem_read(1, a.addr, uint32_t(a.bytes.size()), {}); break;
      case Op::ReadData: enc.mem_read(1, a.addr, uint32_t(a.bytes.size()), a.bytes); break;
      case Op::Unknown: enc.mem_unknown(1, a.addr, a.bytes.size()); break;
    }
  }
  enc.end_step();
  return {enc.out().data(), enc.out().data() + enc.out().size()};
}

// Decodes every step; `got` points into the decoder, so it is checked here.
std::vector<Access> decode(const std::vector<uint8_t>& bytes, bool& ok) {
  StepDecoder dec(x64(), bytes.data(), bytes.size());
  Collect c;
  DecodedStep s;
  ok = true;
  while (dec.next(s))
    if (!dec.effects(s, c, 1)) break;
  ok = dec.ok();
  return c.got;
}

std::vector<uint8_t> le(uint64_t v, size_t n) {
  std::vector<uint8_t> b(n);
  for (size_t i = 0; i < n; ++i) b[i] = uint8_t(v >> (8 * i));
  return b;
}
}  // namespace

TEST_CASE("memory accesses: every kind, size, value and address comes back") {
  std::mt19937_64 rng(3);
  const uint64_t bases[] = {0x7fffffffe000, 0x407000, 0x10000, 0, ~0ull - 0x40, 0x7f0000001000};
  std::vector<Access> v;
  for (int i = 0; i < 4000; ++i) {
    const size_t sizes[] = {1, 2, 3, 4, 5, 7, 8, 8, 8, 9, 16, 64, 300};
    const size_t n = sizes[rng() % std::size(sizes)];
    uint64_t addr = bases[rng() % std::size(bases)] + rng() % 0x40;
    if (i % 97 == 0) addr = rng();  // far from everything
    if (addr + n < addr) addr -= n;  // keep the range inside the address space
    const Op op = Op(rng() % 4);
    std::vector<uint8_t> bytes(n);
    if (op == Op::Write || op == Op::ReadData) {
      // Small values (stored as varints), values one byte too long for
      // that, and random ones (stored as they are).
      const uint64_t kinds[] = {rng() % 100, 0x80, rng() >> (rng() % 64), rng(), ~0ull};
      const uint64_t x = kinds[rng() % std::size(kinds)];
      for (size_t k = 0; k < n; ++k) bytes[k] = k < 8 ? uint8_t(x >> (8 * k)) : uint8_t(rng());
    }
    v.push_back({op, addr, bytes});
  }
  v.push_back({Op::Write, 0x1000, le(0x7f, 2)});      // varint of 1 byte for 2
  v.push_back({Op::Write, 0x1000, le(0x80, 2)});      // 2 bytes either way: as it is
  v.push_back({Op::Write, 0x1000, le(~0ull, 8)});     // 10 varint bytes: as it is
  v.push_back({Op::Write, 0x1000, le(1ull << 55, 8)});  // 8 varint bytes: as it is
  v.push_back({Op::Write, 0x1000, {}});               // empty
  bool ok = false;
  const auto got = decode(encode(v), ok);
  CHECK(ok);
  REQUIRE(got.size() == v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    CAPTURE(i);
    CHECK(got[i] == v[i]);
  }
}

TEST_CASE("memory accesses: a loop over stack and heap costs a few bytes per access") {
  // What a counting loop does: read and write a stack slot, store the
  // counter into an array on the heap. With one "last address" every
  // access would be six bytes of distance; with slots each is one.
  std::vector<Access> v;
  for (uint64_t i = 0; i < 1000; ++i) {
    v.push_back({Op::Read, 0x7fffffffe778, std::vector<uint8_t>(8)});
    v.push_back({Op::Write, 0x7fffffffe778, le(0x162c8 + i, 8)});
    v.push_back({Op::Write, 0x407778 + 8 * i, le(0x162c8 + i, 8)});
    v.push_back({Op::Read, 0x7fffffffe770, std::vector<uint8_t>(8)});
  }
  const auto bytes = encode(v);
  // Per iteration: four steps of a header byte and a length byte, four
  // tags, four one-byte distances and two three-byte values: 22 bytes.
  CHECK(bytes.size() <= 1000 * 22 + 32);
  bool ok = false;
  CHECK(decode(bytes, ok) == v);
  CHECK(ok);
}

TEST_CASE("memory accesses: corrupt tags and values are refused") {
  auto one = [](std::vector<uint8_t> effects) {
    // A step header (same size/kind flags unset) with the given effects.
    std::vector<uint8_t> s = {uint8_t(kStepHasEffects | kStepInstruction | kStepFallThroughPc), 0, 4,
                              uint8_t(effects.size())};
    s.insert(s.end(), effects.begin(), effects.end());
    // header: tid var 0, size var 4, then the effects length.
    bool ok = false;
    decode(s, ok);
    return ok;
  };
  const uint8_t write_var8 = uint8_t(kAccessTag + kAccWriteVar * 16 + 3 * 4);
  const uint8_t write_var4 = uint8_t(kAccessTag + kAccWriteVar * 16 + 2 * 4);
  const uint8_t write_var1 = uint8_t(kAccessTag + kAccWriteVar * 16 + 1 * 4);
  CHECK(one({write_var8, 0, 0x05}));               // a small value: fine
  CHECK(one({write_var4, 0, 0xff, 0xff, 0xff, 0xff, 0x0f}));  // 2^32 - 1 fits four bytes
  CHECK(!one({write_var4, 0, 0x80, 0x80, 0x80, 0x80, 0x10}));  // 2^32 does not
  CHECK(!one({write_var1, 0, 0x05}));              // a one-byte value is never a varint
  CHECK(!one({uint8_t(kAccessTag + kAccKinds * 16), 0}));  // no such kind
  CHECK(!one({uint8_t(kAccessTag + kAccWrite * 16 + 3 * 4), 0, 1, 2}));  // 8 bytes promised, 2 there
  CHECK(!one({uint8_t(3), 0, 8}));                 // a tag of index version 5
  CHECK(one({uint8_t(kRegTag + 0), 2}));           // rax, delta 1
  CHECK(!one({uint8_t(kRegTag + 0)}));             // rax, its delta cut off
  CHECK(!one({uint8_t(kRegTag + 62), 2}));         // x86-64 has 60 registers
  const uint16_t xmm0 = *arch_desc(ArchId::X86_64).find("xmm0");
  CHECK(!one({uint8_t(kRegTag + xmm0), 2}));       // 16 bytes: never in the short form
}

TEST_CASE("registers: numbers from 128 and wide registers take the long form") {
  // aarch64's table has 68 entries; a made-up number past 127 cannot be
  // tried, so the long form is checked on wide registers, which share it.
  StepEncoder enc(x64());
  enc.reset();
  const uint16_t rax = *x64().find("rax"), xmm0 = *x64().find("xmm0");
  const uint8_t v8[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  uint8_t v16[16];
  for (int i = 0; i < 16; ++i) v16[i] = uint8_t(0xa0 + i);
  enc.begin_step(0, 1, 0x1000, 4, fmt::StepKind::Instruction);
  enc.reg(0, rax, v8);
  enc.reg(0, xmm0, v16);
  enc.end_step();
  const std::vector<uint8_t> bytes(enc.out().data(), enc.out().data() + enc.out().size());
  // header, tid, pc (two bytes), size, length; rax: tag + 8-byte delta
  // (9 varint bytes); xmm0: long tag, number, 16 bytes.
  CHECK(bytes[6] == uint8_t(kRegTag | rax));
  CHECK(bytes[6 + 1 + 9] == uint8_t(EffectTag::Reg));
  CHECK(bytes.size() == 6 + 1 + 9 + 2 + 16);
  struct Regs : EffectVisitor {
    std::vector<std::vector<uint8_t>> got;
    void reg(uint32_t, uint16_t, const uint8_t* v, uint32_t n) override { got.emplace_back(v, v + n); }
    void mem_write(uint64_t, uint64_t, const uint8_t*, uint64_t) override {}
  } c;
  StepDecoder dec(x64(), bytes.data(), bytes.size());
  DecodedStep s;
  REQUIRE(dec.next(s));
  REQUIRE(dec.effects(s, c, 1));
  REQUIRE(c.got.size() == 2);
  CHECK(c.got[0] == std::vector<uint8_t>(v8, v8 + 8));
  CHECK(c.got[1] == std::vector<uint8_t>(v16, v16 + 16));
}

}  // namespace test_step_accesses
