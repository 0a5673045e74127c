// Writes the UCIR trace the gdb / lldb integration tests replay: a small
// x86-64 loop with real machine code, so debuggers can disassemble it.
//
//   401000  mov rax, 0            eid 0
//   401007  mov rbx, 0x402000     eid 1
//   40100e  inc rax               eids 2, 6, 10, 14, 18   (rax = 1..5)
//   401011  mov [rbx], rax        eids 3, 7, 11, 15, 19   (writes 0x402000)
//   401014  cmp rax, 5            eids 4, 8, 12, 16, 20
//   401018  jne 40100e            eids 5, 9, 13, 17, 21
//   40101a  nop                   eid 22; 23 = end of trace
//
// UCIR starts the integer registers at zero; the vector registers are never
// written, so they stay unknown.
// Usage: make_loop_trace OUT.ucir [ITERATIONS]
// ITERATIONS (default 5) > 5 makes a long trace of the same loop (4 steps
// and one 8-byte store per iteration; the code's `cmp rax, 5` is then not
// what the flags say): the stub's cancellation tests need operations that
// run for seconds.
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "formats/ucir/ucir_writer.h"

using namespace ttd;

int main(int argc, char** argv) {
  if (argc != 2 && argc != 3) {
    std::fprintf(stderr, "usage: make_loop_trace OUT.ucir [ITERATIONS]\n");
    return 2;
  }
  const uint64_t iterations = argc == 3 ? std::strtoull(argv[2], nullptr, 10) : 5;
  if (iterations == 0 || iterations > 100000000) {
    std::fprintf(stderr, "make_loop_trace: ITERATIONS must be 1..100000000\n");
    return 2;
  }
  const ArchId a = ArchId::X86_64;
  const ArchDesc& arch = arch_desc(a);
  auto reg = [&](const char* name) { return *arch.find(name); };
  auto created = fmt::UcirWriter::create(argv[1], a);
  if (!created) {
    std::fprintf(stderr, "%s\n", created.error().to_string().c_str());
    return 1;
  }
  fmt::UcirWriter& w = **created;
  const std::vector<uint8_t> code = {
      0x48, 0xc7, 0xc0, 0x00, 0x00, 0x00, 0x00,  // mov rax, 0
      0x48, 0xc7, 0xc3, 0x00, 0x20, 0x40, 0x00,  // mov rbx, 0x402000
      0x48, 0xff, 0xc0,                          // inc rax
      0x48, 0x89, 0x03,                          // mov [rbx], rax
      0x48, 0x83, 0xf8, 0x05,                    // cmp rax, 5
      0x75, 0xf4,                                // jne 0x40100e
      0x90,                                      // nop
  };
  w.begin_keyframe();
  w.reg_u64(reg("rsp"), 0x7ff000);
  w.reg_u64(reg("rbp"), 0);
  w.reg_u64(reg("eflags"), 0x202);
  w.mem_map(0x401000, 0x1000, 5, "loop");
  w.mem_write(0x401000, code);
  w.mem_map(0x402000, 0x1000, 3, "data");
  w.mem_map(0x7fe000, 0x2000, 3, "stack");
  w.end_keyframe();

  w.begin_frame();
  w.jmp(0x401000, 0x1a);
  w.reg_u64(reg("rax"), 0);
  w.step(7);
  w.reg_u64(reg("rbx"), 0x402000);
  w.step(7);
  for (uint64_t i = 1; i <= iterations; ++i) {
    if (i > 1) {
      w.begin_frame();
      w.jmp(0x40100e, 0xc);
    }
    w.reg_u64(reg("rax"), i);
    w.reg_u64(reg("eflags"), 0x202);
    w.step(3);
    uint8_t value[8];
    for (int b = 0; b < 8; ++b) value[b] = uint8_t(i >> (8 * b));
    w.mem_write(0x402000, value);
    w.step(3);
    w.reg_u64(reg("eflags"), i == iterations ? 0x246 : 0x297);  // ZF set when rax == 5
    w.step(4);
    w.step(2);
  }
  w.begin_frame();
  w.jmp(0x40101a, 1);
  w.step(1);
  Status st = w.close();
  if (!st) {
    std::fprintf(stderr, "%s\n", st.error().to_string().c_str());
    return 1;
  }
  return 0;
}
