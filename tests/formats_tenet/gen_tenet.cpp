// gen_tenet OUT SIZE_MB [SEED]: writes a synthetic x86-64 Tenet trace of
// about SIZE_MB megabytes in the Pin tracer's style, for throughput runs of
// the reader. The "program" walks a few loops: most lines change one or two
// registers, about a third read memory and a sixth write it, like a typical
// Pin trace of compiled code.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "formats/tenet/testing/tenet_writer.h"

using namespace ttd::fmt::tenet;

namespace {

struct Rng {
  uint64_t s;
  uint64_t next() {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return s;
  }
  uint64_t below(uint64_t n) { return next() % n; }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s OUT SIZE_MB [SEED]\n", argv[0]);
    return 2;
  }
  const uint64_t target = std::strtoull(argv[2], nullptr, 10) << 20;
  Rng rng{argc > 3 ? std::strtoull(argv[3], nullptr, 10) | 1 : 0x9e3779b97f4a7c15ull};
  std::FILE* out = std::fopen(argv[1], "wb");
  if (!out) {
    std::perror(argv[1]);
    return 1;
  }
  const std::vector<std::string> names = {"rax", "rbx", "rcx", "rdx", "rbp", "rsp", "rsi", "rdi",
                                          "r8",  "r9",  "r10", "r11", "r12", "r13", "r14", "r15"};
  TenetWriter writer(names, "rip", TenetStyle{});
  std::vector<uint64_t> regs(names.size());
  for (auto& r : regs) r = rng.next() & 0x7fffffffffff;
  regs[5] = 0x7ffc8a2e1f00;  // rsp
  uint64_t pc = 0x401000, loop_start = pc;
  std::vector<WrittenAccess> accesses;
  std::string buf;
  buf.reserve(size_t(1) << 21);
  uint64_t written = 0, lines = 0;
  while (written < target) {
    writer.line(regs, pc, accesses, buf);
    ++lines;
    // What this instruction does, to be written on the next line.
    accesses.clear();
    uint64_t changes = rng.below(3);
    for (uint64_t i = 0; i < changes; ++i) {
      uint64_t r = rng.below(names.size());
      regs[r] = rng.below(4) ? regs[r] + rng.below(64) : (0x7ffc00000000 | (rng.next() & 0xffffffff));
    }
    uint64_t kind = rng.below(6);
    if (kind < 2 || kind == 5) {
      WrittenAccess a;
      a.kind = kind == 5 ? AccessKind::Write : AccessKind::Read;
      a.addr = regs[5] - 8 * rng.below(32);
      a.bytes.resize(rng.below(2) ? 8 : 4);
      for (auto& b : a.bytes) b = uint8_t(rng.next());
      accesses.push_back(std::move(a));
    }
    pc += 2 + rng.below(6);
    if (rng.below(12) == 0) pc = loop_start;
    if (rng.below(5000) == 0) loop_start = pc = 0x401000 + rng.below(0x100000);
    if (buf.size() >= (size_t(1) << 20)) {
      std::fwrite(buf.data(), 1, buf.size(), out);
      written += buf.size();
      buf.clear();
    }
  }
  std::fwrite(buf.data(), 1, buf.size(), out);
  written += buf.size();
  std::fclose(out);
  std::printf("%s: %llu lines, %.1f MB\n", argv[1], (unsigned long long)lines, double(written) / 1e6);
  return 0;
}
