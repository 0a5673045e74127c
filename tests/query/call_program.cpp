#include "call_program.h"

#include <vector>

#include "formats/ucir/ucir_writer.h"

namespace ttd::test {

namespace {
uint16_t reg(const char* name) { return *arch_desc(ArchId::X86_64).find(name); }

void le64(uint64_t v, uint8_t out[8]) {
  for (int i = 0; i < 8; ++i) out[i] = uint8_t(v >> (8 * i));
}
}  // namespace

Status write_call_program(const std::string& path, const CallProgramOptions& o) {
  auto w = fmt::UcirWriter::create(path, ArchId::X86_64);
  if (!w) return w.error();
  fmt::UcirWriter& W = **w;
  const uint16_t rax = reg("rax"), rsp = reg("rsp");
  const uint8_t main_code[] = {0xe8, 0xfb, 0x00, 0x00, 0x00, 0xeb, 0xf9};
  const uint8_t f_code[] = {0xb8, 0x11, 0x00, 0x00, 0x00, 0xe8, 0xf6, 0x00, 0x00, 0x00, 0xc3};
  const uint8_t g_code[] = {0xb8, 0x07, 0x00, 0x00, 0x00, 0xc3};
  W.begin_keyframe();
  W.reg_u64(rax, 0);
  W.reg_u64(rsp, kStackTop);
  if (o.with_code) {
    W.mem_map(kMain, 0x1000, 5, "exe", "/bin/call_program", 0, 0x1000);
    W.mem_write(kMain, main_code);
    W.mem_write(kF, f_code);
    W.mem_write(kG, g_code);
    std::vector<uint8_t> sled(3000, 0x90);
    W.mem_write(kSled, sled);
  }
  W.mem_map(kStackTop - 0x2000, 0x2000, 3, "stack");
  W.end_keyframe();

  uint64_t sp = kStackTop;
  uint8_t buf[8];
  auto call = [&](uint64_t ret_addr) {
    sp -= 8;
    le64(ret_addr, buf);
    W.mem_write(sp, buf);
    W.reg_u64(rsp, sp);
    W.step(5);
  };
  auto ret = [&] {
    W.mem_read(sp, 8);
    sp += 8;
    W.reg_u64(rsp, sp);
    W.step(1);
  };
  for (uint64_t i = 0; i < o.iterations; ++i) {
    W.begin_frame();
    W.jmp(kMain, 5);
    call(kMain + 5);
    W.begin_frame();
    W.jmp(kF, 10);
    W.reg_u64(rax, 0x11);
    W.step(5);
    call(kF + 10);
    W.begin_frame();
    W.jmp(kG, 6);
    W.reg_u64(rax, 7);
    W.step(5);
    ret();
    W.begin_frame();
    W.jmp(kF + 10, 1);
    ret();
    W.begin_frame();
    W.jmp(kMain + 5, 2);
    W.step(2);
    if (o.spin) {  // the trace takes the jmp to the sled; only pairing matters here
      W.begin_frame();
      W.jmp(kSled, uint32_t(o.spin));
      for (uint64_t k = 0; k < o.spin; ++k) W.step(1);
    }
  }
  W.exit();
  return W.close();
}

}  // namespace ttd::test
