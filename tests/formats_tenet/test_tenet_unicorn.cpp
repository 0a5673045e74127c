// Tenet traces of real executions: Unicorn runs x86-64 and arm32 code, a
// tracer built like Tenet's writes the trace, our reader reads it back, and
// every EID's reconstructed state must equal what the emulator had there.
#include <doctest/doctest.h>

#include <set>

#include "formats/tenet/tenet_reader.h"
#include "state_recording_sink.h"
#include "temp_file.h"
#include "unicorn_tenet_tracer.h"

using namespace ttd;
using namespace ttd::test;

namespace {

constexpr uint64_t kCode = 0x10000, kData = 0x20000, kStack = 0x30000;

std::vector<uint8_t> data_pattern() {
  std::vector<uint8_t> d(0x1000);
  for (size_t i = 0; i < d.size(); ++i) d[i] = uint8_t(i * 7 + 3);
  return d;
}

// Reads the trace back and checks every EID against the emulator.
void check_reconstruction(const TracerSetup& setup, const TracerRun& run) {
  TempFile file(run.trace);
  auto reader = fmt::tenet::TenetReader::open(file.path());
  REQUIRE_MESSAGE(reader.ok(), reader.error().to_string());
  CHECK(reader.value()->arch() == setup.arch);
  StateRecordingSink sink;
  Status s = reader.value()->read(sink, nullptr);
  REQUIRE_MESSAGE(s.ok(), s.error().to_string());
  REQUIRE(sink.ended);

  const ArchDesc& arch = arch_desc(setup.arch);
  std::vector<uint16_t> reg_index;
  for (const auto& name : run.register_names) reg_index.push_back(*arch.find(name));

  REQUIRE(sink.steps.size() == run.at_step.size());
  uint64_t known_bytes_checked = 0;
  for (size_t eid = 0; eid < run.at_step.size(); ++eid) {
    INFO("EID " << eid);
    const EmulatorSnapshot& emu = run.at_step[eid];
    const MachineState& state = sink.states[eid];
    const ThreadState* t = state.find_thread(1);
    REQUIRE(t);
    CHECK(sink.steps[eid].pc == emu.pc);
    CHECK(t->regs.get_u64(arch.pc_index) == emu.pc);
    for (size_t r = 0; r < reg_index.size(); ++r) {
      INFO("register " << run.register_names[r]);
      REQUIRE(t->regs.valid(reg_index[r]));
      CHECK(*t->regs.get_u64(reg_index[r]) == emu.regs[r]);
    }
    // Every byte the reconstruction knows equals the emulator's memory ...
    const ProcessState* p = state.find_process(1);
    for (size_t region = 0; region < setup.data.size(); ++region) {
      const EmulatorRegion& reg = setup.data[region];
      std::vector<uint8_t> bytes(reg.size), valid(reg.size);
      if (p) p->memory.read(reg.base, bytes.data(), valid.data(), reg.size);
      for (uint64_t i = 0; i < reg.size; ++i)
        if (valid[i]) {
          ++known_bytes_checked;
          if (bytes[i] != emu.memory[region][i])
            FAIL_CHECK("byte at 0x" << std::hex << reg.base + i << " is " << int(bytes[i]) << ", emulator had "
                                    << int(emu.memory[region][i]));
        }
    }
    // ... and every byte an earlier instruction touched is known.
    for (const TouchedRange& tr : run.touched) {
      if (tr.instruction + 1 > eid) continue;  // touched by step eid or later
      REQUIRE(p);
      CHECK_MESSAGE(p->memory.all_known(tr.addr, tr.size),
                    "bytes at 0x" << std::hex << tr.addr << " touched by instruction " << std::dec << tr.instruction);
    }
  }
  CHECK(known_bytes_checked > 1000);
}

}  // namespace

TEST_CASE("tenet: x86-64 execution under Unicorn, Pin-style trace") {
  // A byte-sum loop with loads, stores, a read-modify-write counter, push /
  // call / ret / pop, xchg with memory, and a 64-bit immediate:
  //   mov rsi,0x20000; lea rdi,[rsi+0x100]; mov ecx,8; xor eax,eax
  // l:movzx edx,byte[rsi]; add rax,rdx; mov [rdi],al; inc qword[rsi+0x200]
  //   add rsi,1; add rdi,1; dec ecx; jnz l
  //   push rax; call f; pop rbx; mov [rsi+0x300],rbx; xchg [rsi+0x308],rax
  //   movabs r15,0x1122334455667788; mov r8,r15; nop(end)
  // f:mov rdx,[rsp+8]; add rdx,1; ret
  TracerSetup setup;
  setup.arch = ArchId::X86_64;
  setup.code_base = kCode;
  setup.code = {0x48, 0xc7, 0xc6, 0x00, 0x00, 0x02, 0x00, 0x48, 0x8d, 0xbe, 0x00, 0x01, 0x00, 0x00, 0xb9, 0x08,
                0x00, 0x00, 0x00, 0x31, 0xc0, 0x0f, 0xb6, 0x16, 0x48, 0x01, 0xd0, 0x88, 0x07, 0x48, 0xff, 0x86,
                0x00, 0x02, 0x00, 0x00, 0x48, 0x83, 0xc6, 0x01, 0x48, 0x83, 0xc7, 0x01, 0xff, 0xc9, 0x75, 0xe5,
                0x50, 0xe8, 0x1d, 0x00, 0x00, 0x00, 0x5b, 0x48, 0x89, 0x9e, 0x00, 0x03, 0x00, 0x00, 0x48, 0x87,
                0x86, 0x08, 0x03, 0x00, 0x00, 0x49, 0xbf, 0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, 0x4d,
                0x89, 0xf8, 0x90, 0x48, 0x8b, 0x54, 0x24, 0x08, 0x48, 0x83, 0xc2, 0x01, 0xc3};
  setup.until = kCode + 0x52;
  setup.data = {{kData, data_pattern()}, {kStack, {}}};
  // r9..r14 stay zero: the Pin-style first line leaves them out and the
  // reader must take them as zero, as Tenet does.
  setup.initial_regs = {{"rsp", kStack + 0x800}, {"rbp", kStack + 0x900}, {"rbx", 0xdeadbeefcafef00d},
                        {"rdx", 0x1234}, {"r8", 0x8888}};
  setup.style = {.uppercase = false, .hex_prefix = true, .first_line_omits_zero = true};
  setup.merge_read_write = true;  // exercise mrw (inc [mem], xchg [mem])
  TracerRun run = run_unicorn_tenet_tracer(setup);
  REQUIRE(run.at_step.size() > 60);
  CHECK(run.trace.find("mrw=") != std::string::npos);
  CHECK(run.trace.substr(0, run.trace.find('\n')).find("r9=") == std::string::npos);
  check_reconstruction(setup, run);
}

TEST_CASE("tenet: arm32 execution under Unicorn, QEMU-style trace") {
  //   movw r0,#0; movt r0,#2; add r1,r0,#0x100; add r6,r0,#0x200; mov r2,#8; mov r3,#0
  // l:ldrb r4,[r0],#1; add r3,r3,r4; strb r3,[r1],#1; ldr r5,[r6]; add r5,r5,#1; str r5,[r6]
  //   subs r2,r2,#1; bne l
  //   push {r3,lr}; bl f; pop {r3,lr}; str r3,[r6,#4]; stm r6,{r0-r3}; ldm r6,{r7-r10}
  //   movw r12,#0x5678; movt r12,#0x1234; nop(end)
  // f:ldr r7,[sp]; add r7,r7,#1; str r7,[sp]; bx lr
  const uint32_t words[] = {0xe3000000, 0xe3400002, 0xe2801c01, 0xe2806c02, 0xe3a02008, 0xe3a03000,
                            0xe4d04001, 0xe0833004, 0xe4c13001, 0xe5965000, 0xe2855001, 0xe5865000,
                            0xe2522001, 0x1afffff7, 0xe92d4008, 0xeb000006, 0xe8bd4008, 0xe5863004,
                            0xe886000f, 0xe8960780, 0xe305c678, 0xe341c234, 0xe320f000, 0xe59d7000,
                            0xe2877001, 0xe58d7000, 0xe12fff1e};
  TracerSetup setup;
  setup.arch = ArchId::Arm;
  setup.code_base = kCode;
  for (uint32_t w : words)
    for (int i = 0; i < 4; ++i) setup.code.push_back(uint8_t(w >> (8 * i)));
  setup.until = kCode + 0x58;
  setup.data = {{kData, data_pattern()}, {kStack, {}}};
  setup.initial_regs = {{"sp", kStack + 0x800}, {"lr", 0xfffffff0}, {"r11", 0x11111111}};
  setup.style = {.uppercase = true, .hex_prefix = false, .first_line_omits_zero = false};
  TracerRun run = run_unicorn_tenet_tracer(setup);
  REQUIRE(run.at_step.size() > 60);
  CHECK(run.trace.rfind("R0=0,R1=0,", 0) == 0);  // QEMU style: all registers, no 0x
  check_reconstruction(setup, run);
}
