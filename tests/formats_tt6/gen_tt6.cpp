// gen_tt6 OUT [MB] [--tt6e]: writes a large synthetic TT6 (or TT6E) trace
// for throughput runs: a loop of 64 instructions executed over and over,
// about half COMPUTE, a third MEMORY (word, byte, double, multiple and
// AltiVec loads and stores walking a 1 MiB buffer), conditional branches
// both ways, a call and return, an lswx (MEMORY_EXTENDED) and now and then
// a synchronisation escape record - the record mix of compiled code.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "formats/tt6/testing/tt6_writer.h"

using namespace ttd::fmt::tt6;

namespace {

constexpr uint32_t kCode = 0x10000, kData = 0x200000, kDataSize = 1u << 20;

struct Op {
  uint32_t opcode;
  enum Kind { Compute, Load, Store, BranchNotTaken, Call, Return, LoopBack, Lswx } kind;
  uint32_t size;
};

// The loop body; the memory operations advance through kData.
const Op kBody[] = {
    {0x7c632214, Op::Compute, 0},  {0x80690000, Op::Load, 4},     {0x38630001, Op::Compute, 0},
    {0x90690004, Op::Store, 4},    {0x7c0903a6, Op::Compute, 0},  {0x88890008, Op::Load, 1},
    {0x5463103a, Op::Compute, 0},  {0x2c030000, Op::Compute, 0},  {0x41820010, Op::BranchNotTaken, 0},
    {0x98890009, Op::Store, 1},    {0xc8290010, Op::Load, 8},     {0xfc41082a, Op::Compute, 0},
    {0xd8490018, Op::Store, 8},    {0x7c8a1a14, Op::Compute, 0},  {0x48000101, Op::Call, 0},
    {0x7c0802a6, Op::Compute, 0},  {0x9421fff0, Op::Store, 4},    {0x80010014, Op::Load, 4},
    {0x7c0803a6, Op::Compute, 0},  {0x4e800020, Op::Return, 0},   {0x7c042000, Op::Compute, 0},
    {0xbb890020, Op::Load, 16},    {0xbf890040, Op::Store, 16},   {0x7c0048ce, Op::Load, 16},
    {0x10200000, Op::Compute, 0},  {0x7c2049ce, Op::Store, 16},   {0x7d49342a, Op::Lswx, 8},
    {0x7c6b1b78, Op::Compute, 0},  {0x5484063e, Op::Compute, 0},  {0x7ca42a14, Op::Compute, 0},
    {0x80a90060, Op::Load, 4},     {0x7cc53214, Op::Compute, 0},  {0x90c90064, Op::Store, 4},
    {0x2c860040, Op::Compute, 0},  {0x40860008, Op::BranchNotTaken, 0},
    {0x7ce63a14, Op::Compute, 0},  {0x39080001, Op::Compute, 0},  {0xa1090068, Op::Load, 2},
    {0xb109006a, Op::Store, 2},    {0x7d2a4a14, Op::Compute, 0},  {0x81490070, Op::Load, 4},
    {0x7d6a5a14, Op::Compute, 0},  {0x91690074, Op::Store, 4},    {0x7d8b6214, Op::Compute, 0},
    {0x39ad0001, Op::Compute, 0},  {0x81c90078, Op::Load, 4},     {0x7dee7a14, Op::Compute, 0},
    {0x91e9007c, Op::Store, 4},    {0x3a100004, Op::Compute, 0},  {0x7e308a14, Op::Compute, 0},
    {0x82490080, Op::Load, 4},     {0x7e72a214, Op::Compute, 0},  {0x3a940001, Op::Compute, 0},
    {0x92a90084, Op::Store, 4},    {0x7ed6b214, Op::Compute, 0},  {0x7ef7ba14, Op::Compute, 0},
    {0x83090088, Op::Load, 4},     {0x7f39ca14, Op::Compute, 0},  {0x9349008c, Op::Store, 4},
    {0x7f7bda14, Op::Compute, 0},  {0x3b9c0001, Op::Compute, 0},  {0x7fbdea14, Op::Compute, 0},
    {0x2f9d0000, Op::Compute, 0},  {0x4bffff04, Op::LoopBack, 0},
};
constexpr uint32_t kBodyLength = sizeof kBody / sizeof kBody[0];

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s OUT [MB=512] [--tt6e]\n", argv[0]);
    return 2;
  }
  const std::string out = argv[1];
  uint64_t megabytes = 512;
  Variant variant = Variant::Tt6;
  for (int i = 2; i < argc; ++i) {
    if (std::strcmp(argv[i], "--tt6e") == 0) variant = Variant::Tt6e;
    else megabytes = std::strtoull(argv[i], nullptr, 10);
  }
  std::FILE* f = std::fopen(out.c_str(), "wb");
  if (!f) {
    std::perror(out.c_str());
    return 1;
  }
  const uint64_t target = megabytes << 20;
  Tt6Writer w(variant, kCode);
  uint64_t written = 0, instructions = 0, iteration = 0;
  uint32_t data = kData;
  const uint32_t callee = kCode + 0x400;  // where "bl" goes (the call body is inline below)
  while (written < target) {
    uint32_t pc = kCode;
    for (uint32_t i = 0; i < kBodyLength; ++i) {
      const Op& op = kBody[i];
      uint32_t next = pc + 4;
      switch (op.kind) {
        case Op::Call: next = callee; break;
        case Op::Return: next = kCode + 4 * 15; break;  // back after the bl
        case Op::LoopBack: next = kCode; break;
        default: break;
      }
      // (The reader works the pcs out from the records: ops 15-19 run at the callee.)
      const uint32_t ea = data + (op.size ? (i * 16) % 256 : 0);
      w.instruction(op.opcode, next, ea, op.kind == Op::Lswx ? op.size : 0);
      pc = next;
      ++instructions;
    }
    data = kData + uint32_t((iteration * 256) % kDataSize);
    if (++iteration % 1024 == 0) w.sync(kSyncSignal, kData, uint32_t(iteration / 1024));
    if (w.bytes().size() >= (size_t(8) << 20)) {
      if (std::fwrite(w.bytes().data(), 1, w.bytes().size(), f) != w.bytes().size()) {
        std::perror(out.c_str());
        return 1;
      }
      written += w.bytes().size();
      w.bytes().clear();
    }
  }
  std::fwrite(w.bytes().data(), 1, w.bytes().size(), f);
  written += w.bytes().size();
  std::fclose(f);
  std::printf("%s: %.1f MB, %llu instructions, %llu sync records\n", out.c_str(), double(written) / 1e6,
              (unsigned long long)instructions, (unsigned long long)(iteration / 1024));
  return 0;
}
