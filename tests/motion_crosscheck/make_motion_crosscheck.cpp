// The fixture and the expected answers of the motion cross-check (issue 18):
// the engine motion suite's program (tests/engine/motion_program.h, one
// thread, the suite's seed) written as a real UCIR trace that `ttd serve`
// and `ttd dap` open, an ELF of its code with symbols (main, f, g) for gdb
// and lldb, and a JSON file of motion cases with the stop EIDs the suite's
// brute-force oracles give (motion_suite.h). The integration driver
// (run_motion_crosscheck.py) drives gdb, lldb and DAP through the same
// cases and compares.
//
// Before writing the JSON the helper replays every case with the engine's
// Timeline on the UCIR file it wrote: a difference there (the UCIR rendition
// or the engine disagreeing with the oracle) is reported and exits 1, so
// the debugger checks compare against answers the engine gives too.
//
// Usage: make_motion_crosscheck ARCH OUT_DIR   (ARCH: x86-64, aarch64, ppc32)
// Writes OUT_DIR/motion-ARCH.ucir, .elf and .json.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "crosscheck_cases.h"
#include "formats/ucir/ucir_writer.h"
#include "motion_elf.h"
#include "motion_suite.h"

using namespace ttd;
using json = nlohmann::json;

namespace {

// One step per UCIR frame; the stack and link register follow the calls so
// that gdb and lldb can unwind (x86-64: the return address on the stack;
// aarch64: x30, which a return sets back to the caller's own return
// address, as the caller's epilogue would restore it: g calls f without
// saving x30 in code that is all nops). UCIR has no register numbers for PowerPC (usercorn's
// Unicorn 1 had none), so a ppc32 trace carries no lr / r1 and the
// debuggers cannot unwind there: the driver leaves out their nexti and
// finish on ppc32.
Status write_ucir(const test::MotionProgram& p, const std::string& path) {
  auto created = fmt::UcirWriter::create(path, p.arch);
  if (!created) return created.error();
  fmt::UcirWriter& w = **created;
  const ArchDesc& a = arch_desc(p.arch);
  constexpr uint64_t kStackTop = 0x7ff000;
  uint64_t sp = kStackTop;
  std::vector<uint64_t> returns;  // aarch64: the return addresses x30 holds, innermost last
  w.begin_keyframe();
  if (p.arch == ArchId::X86_64) w.reg_u64(*a.find("rsp"), sp);
  if (p.arch == ArchId::AArch64) {
    w.reg_u64(*a.find("sp"), sp);
    w.reg_u64(*a.find("x30"), 0);
  }
  w.mem_map(test::kMotionCode, 0x1000, 5, "motion");
  w.mem_write(test::kMotionCode, p.code);
  w.mem_map(test::kMotionData, 0x1000, 3, "data");
  w.mem_map(kStackTop - 0x1000, 0x2000, 3, "stack");
  w.end_keyframe();
  for (size_t k = 0; k < p.steps.size(); ++k) {
    const auto& s = p.steps[k];
    uint8_t size = uint8_t(p.arch == ArchId::X86_64 ? (p.code[s.pc - test::kMotionCode] == 0xc3 ? 1 : 5) : 4);
    w.begin_frame();
    w.jmp(s.pc, size);
    for (const auto& acc : s.accesses) {
      if (acc.write) w.mem_write(acc.addr, acc.value);
      else w.mem_read(acc.addr, uint32_t(acc.size));
    }
    uint64_t ret = s.pc + size;
    if (p.arch == ArchId::X86_64 && s.call) {
      sp -= 8;
      uint8_t le[8];
      for (int b = 0; b < 8; ++b) le[b] = uint8_t(ret >> (8 * b));
      w.mem_write(sp, le);
      w.reg_u64(*a.find("rsp"), sp);
    } else if (p.arch == ArchId::X86_64 && s.ret) {
      w.mem_read(sp, 8);
      sp += 8;
      w.reg_u64(*a.find("rsp"), sp);
    } else if (p.arch == ArchId::AArch64 && s.call) {
      returns.push_back(ret);
      w.reg_u64(*a.find("x30"), ret);
    } else if (p.arch == ArchId::AArch64 && s.ret && !returns.empty()) {
      returns.pop_back();
      w.reg_u64(*a.find("x30"), returns.empty() ? 0 : returns.back());
    }
    w.step(size);
  }
  return w.close();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: make_motion_crosscheck x86-64|aarch64|ppc32 OUT_DIR\n");
    return 2;
  }
  const std::string name = argv[1], dir = argv[2];
  ArchId arch = ArchId::X86_64;
  if (name == "x86-64") arch = ArchId::X86_64;
  else if (name == "aarch64") arch = ArchId::AArch64;
  else if (name == "ppc32") arch = ArchId::Ppc32;
  else {
    std::fprintf(stderr, "make_motion_crosscheck: unknown architecture '%s' (x86-64, aarch64, ppc32)\n", name.c_str());
    return 2;
  }
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  const std::string base = dir + "/motion-" + name;
  test::Suite suite(arch, 1);  // the engine suite's program: one thread, its seed
  if (!suite.trace) {
    std::fprintf(stderr, "make_motion_crosscheck: the synthetic trace did not open\n");
    return 1;
  }
  if (Status st = write_ucir(suite.prog, base + ".ucir"); !st) {
    std::fprintf(stderr, "make_motion_crosscheck: %s\n", st.error().to_string().c_str());
    return 1;
  }
  if (Status st = test::write_motion_elf_with_symbols(suite.prog, base + ".elf"); !st) {
    std::fprintf(stderr, "make_motion_crosscheck: %s\n", st.error().to_string().c_str());
    return 1;
  }
  auto made = test::crosscheck_cases(suite);
  if (!made) {
    std::fprintf(stderr, "make_motion_crosscheck: %s\n", made.error().to_string().c_str());
    return 1;
  }
  const json& cases = *made;
  auto opened = Trace::open(base + ".ucir", OpenOptions{});
  if (!opened) {
    std::fprintf(stderr, "make_motion_crosscheck: %s\n", opened.error().to_string().c_str());
    return 1;
  }
  std::string mismatch = test::replay_on_engine(*opened, cases);
  if (!mismatch.empty()) {
    std::fprintf(stderr, "make_motion_crosscheck: the engine on %s.ucir disagrees with the oracle: %s\n", base.c_str(),
                 mismatch.c_str());
    return 1;
  }
  json out = {{"arch", name},
              {"trace", base + ".ucir"},
              {"elf", base + ".elf"},
              {"steps", suite.count()},
              {"cases", cases}};
  std::ofstream(base + ".json") << out.dump(1) << "\n";
  std::printf("%s\n", (base + ".json").c_str());
  return 0;
}
