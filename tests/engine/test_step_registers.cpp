// Register values in the chunk stream are stored relative to the same
// register's last value in the chunk; encoder and decoder keep that history
// per thread and start each chunk from zero. The encoder keeps its tables
// allocated across chunks and hands them to whichever thread comes next, so
// a chunk must still decode on its own with a fresh decoder.
#include <doctest/doctest.h>

#include <cstring>
#include <map>
#include <vector>

#include "engine/step_codec.h"

using namespace ttd;

namespace {
const ArchDesc& x64() { return arch_desc(ArchId::X86_64); }

struct Write {
  uint32_t tidx;
  uint64_t value;
};

// Collects (thread, value) of every register effect.
struct Collect : EffectVisitor {
  std::vector<Write> got;
  void reg(uint32_t tidx, uint16_t, const uint8_t* value, uint32_t len) override {
    uint64_t v = 0;
    std::memcpy(&v, value, std::min<uint32_t>(len, 8));
    got.push_back({tidx, v});
  }
  void mem_write(uint64_t, uint64_t, const uint8_t*, uint64_t) override {}
};

// One chunk: a step per write, each on its thread, writing rax.
std::vector<uint8_t> encode_chunk(StepEncoder& enc, const std::vector<Write>& writes) {
  enc.reset();
  enc.out().clear();
  const uint16_t rax = *x64().find("rax");
  uint64_t pc = 0x1000;
  for (const Write& w : writes) {
    enc.begin_step(w.tidx, 1, pc, 3, fmt::StepKind::Instruction);
    uint8_t bytes[8];
    std::memcpy(bytes, &w.value, 8);
    enc.reg(w.tidx, rax, bytes);
    pc += 3;
  }
  enc.end_step();
  return {enc.out().data(), enc.out().data() + enc.out().size()};
}

std::vector<Write> decode_chunk(const std::vector<uint8_t>& bytes) {
  StepDecoder dec(x64(), bytes.data(), bytes.size());
  Collect c;
  DecodedStep s;
  while (dec.next(s)) REQUIRE(dec.effects(s, c, 1));
  REQUIRE(dec.ok());
  return c.got;
}
}  // namespace

TEST_CASE("register values: every chunk decodes alone, whichever threads the chunks before it had") {
  StepEncoder enc(x64());
  // Chunk 1 gives threads 0 and 1 large values, so a table reused without
  // zeroing would make small deltas in chunk 2 that a fresh decoder reads wrong.
  std::vector<Write> first = {{0, 0x7fff0000aaaa}, {1, 0x5555000011}, {0, 0x7fff0000aaab}, {1, 0x5555000012}};
  std::vector<Write> second = {{1, 0x5555000013}, {2, 7}, {1, 0x5555000014}, {2, 8}, {3, ~0ull}};
  std::vector<Write> third = {{3, 1}, {0, 2}, {1, 3}, {2, 4}, {4, 5}};
  for (const auto* chunk : {&first, &second, &third}) {
    std::vector<Write> got = decode_chunk(encode_chunk(enc, *chunk));
    REQUIRE(got.size() == chunk->size());
    for (size_t i = 0; i < got.size(); ++i) {
      CHECK(got[i].tidx == (*chunk)[i].tidx);
      CHECK(got[i].value == (*chunk)[i].value);
    }
  }
}
