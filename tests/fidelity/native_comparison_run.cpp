#include "tests/fidelity/native_comparison_run.h"

#include <capstone/capstone.h>
#include <elf.h>
#include <cstring>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <vector>

#include "engine/cursor.h"
#include "tests/fidelity/native_process.h"
#include "tests/fidelity/undefined_flags.h"
#include "tools/recorder/recorder.h"

namespace ttd::fidelity {

namespace fs = std::filesystem;

namespace {

struct Range {
  uint64_t addr = 0, size = 0;
};

// The writable PT_LOAD segments of a static x86-64 ELF.
Result<std::vector<Range>> writable_segments(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> b((std::istreambuf_iterator<char>(in)), {});
  if (b.size() < sizeof(Elf64_Ehdr)) return make_error(path, "not an ELF file");
  Elf64_Ehdr eh;
  std::memcpy(&eh, b.data(), sizeof eh);
  std::vector<Range> out;
  for (unsigned i = 0; i < eh.e_phnum; ++i) {
    uint64_t off = eh.e_phoff + uint64_t(i) * eh.e_phentsize;
    if (off + sizeof(Elf64_Phdr) > b.size()) return make_error_at(path, off, "program header past the end");
    Elf64_Phdr ph;
    std::memcpy(&ph, b.data() + off, sizeof ph);
    if (ph.p_type == PT_LOAD && (ph.p_flags & PF_W)) out.push_back({ph.p_vaddr, ph.p_memsz});
  }
  return out;
}

// A rep-prefixed string instruction (movs, cmps, stos, lods, scas)?
bool is_rep_string(std::span<const uint8_t> insn) {
  bool rep = false;
  size_t i = 0;
  for (; i < insn.size(); ++i) {
    uint8_t b = insn[i];
    if (b == 0xf3 || b == 0xf2) rep = true;
    else if (b != 0x66 && b != 0x67 && (b & 0xf0) != 0x40) break;
  }
  return rep && i < insn.size() && insn[i] >= 0xa4 && insn[i] <= 0xaf && insn[i] != 0xa8 && insn[i] != 0xa9;
}

uint64_t gpr(const user_regs_struct& r, x86_reg reg) {
  switch (reg) {
    case X86_REG_RAX: return r.rax; case X86_REG_RBX: return r.rbx; case X86_REG_RCX: return r.rcx;
    case X86_REG_RDX: return r.rdx; case X86_REG_RSI: return r.rsi; case X86_REG_RDI: return r.rdi;
    case X86_REG_RBP: return r.rbp; case X86_REG_RSP: return r.rsp; case X86_REG_R8: return r.r8;
    case X86_REG_R9: return r.r9; case X86_REG_R10: return r.r10; case X86_REG_R11: return r.r11;
    case X86_REG_R12: return r.r12; case X86_REG_R13: return r.r13; case X86_REG_R14: return r.r14;
    case X86_REG_R15: return r.r15;
    default: return 0;
  }
}

// For fnsave / fnstenv: the address of the image they store. The image's
// instruction and operand pointers (bytes 12-25) are not observable under
// ptrace: on this kind of host the kernel's FPU context switch at every
// single-step trap clears them (AMD's FXSAVE-leak scrubbing), which an
// undebugged program never sees.
std::optional<uint64_t> x87_environment_store(csh cs, std::span<const uint8_t> code, const user_regs_struct& regs) {
  cs_insn* insn = nullptr;
  if (cs_disasm(cs, code.data(), code.size(), regs.rip, 1, &insn) != 1) return std::nullopt;
  std::optional<uint64_t> at;
  if ((insn->id == X86_INS_FNSAVE || insn->id == X86_INS_FNSTENV) && insn->detail->x86.op_count == 1 &&
      insn->detail->x86.operands[0].type == X86_OP_MEM) {
    const x86_op_mem& m = insn->detail->x86.operands[0].mem;
    uint64_t a = uint64_t(m.disp);
    if (m.base == X86_REG_RIP) a += regs.rip + insn->size;
    else if (m.base != X86_REG_INVALID) a += gpr(regs, m.base);
    if (m.index != X86_REG_INVALID) a += gpr(regs, m.index) * uint64_t(m.scale);
    at = a;
  }
  cs_free(insn, 1);
  return at;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Removes the files of one run, whatever happens.
struct TempFiles {
  std::vector<std::string> paths;
  ~TempFiles() {
    std::error_code ec;
    for (auto& p : paths) fs::remove(p, ec);
  }
};

}  // namespace

Result<NativeComparison> compare_with_native(const std::string& program, const NativeTamper& tamper) {
  NativeComparison res;
  auto segments = writable_segments(program);
  if (!segments.ok()) return segments.error();

  std::string base = (fs::temp_directory_path() /
                      ("ttd-native-" + std::to_string(::getpid()) + "-" + fs::path(program).filename().string()))
                         .string();
  TempFiles temps{{base + ".ucir", base + ".ucir.ttdidx", base + ".stdout"}};

  rec::RecordOptions ro;
  ro.output = base + ".ucir";
  ro.argv = {program};
  ro.capture_output = true;
  ro.stdin_data = "";
  auto summary = rec::record(ro);
  if (!summary.ok()) return summary.error();
  if (summary->fault) return make_error(program, "the recording faulted: " + *summary->fault);
  res.recorded_steps = summary->steps;
  res.recorded_exit = summary->exit_code;
  res.recorded_stdout = summary->captured_stdout;
  res.record_seconds = summary->seconds;

  OpenOptions oo;
  oo.keyframe_interval = 256;
  oo.index_path = base + ".ucir.ttdidx";
  auto trace = Trace::open(ro.output, oo);
  if (!trace.ok()) return trace.error();
  const ArchDesc& arch = (*trace)->arch();
  Cursor cursor(*trace);

  NativeProcess native;
  if (auto err = native.start(program, base + ".stdout"); !err.empty()) return make_error(program, err);
  std::vector<uint8_t> bytes;
  UndefinedFlags undefined;
  csh cs = 0;
  if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK) return make_error(program, "cannot open Capstone");
  cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
  struct CsClose {
    csh& h;
    ~CsClose() { cs_close(&h); }
  } cs_close_at_end{cs};
  std::vector<uint64_t> unobservable;  // native bytes the debugger changed (see x87_environment_store)
  // The native step count and the recording's EID part ways at rep string
  // instructions: both make each iteration a step, but Unicorn re-enters
  // the instruction once more after the last iteration to find the count
  // zero, and the recorder keeps that as a step of its own (rip still at
  // the instruction, nothing else changed). docs/recording.md lists it.
  uint64_t eid = 0;
  auto recorded_pc = [&](uint64_t e) -> std::optional<uint64_t> {
    if (!cursor.seek(e).ok()) return std::nullopt;
    const ThreadState* th = cursor.state().find_thread(cursor.current_tid());
    if (!th) return std::nullopt;
    return th->regs.get_u64(arch.pc_index);
  };
  for (;;) {
    NativeState ns;
    if (auto err = native.read_state(ns); !err.empty()) return make_error(program, "EID " + std::to_string(eid) + ": " + err);
    if (tamper) tamper(eid, ns);
    if (eid >= res.recorded_steps) {
      res.first = Difference{eid, "step count", "still running", "trace ends after " + std::to_string(res.recorded_steps) + " steps"};
      break;
    }
    if (auto st = cursor.seek(eid); !st.ok()) return st.error();
    const ThreadState* th = cursor.state().find_thread(cursor.current_tid());
    if (!th) return make_error(program, "EID " + std::to_string(eid) + ": no thread in the reconstruction");
    res.first = compare_registers(eid, ns, arch, th->regs, RegisterCheck{eid == 0, undefined.mask()}, res.register_comparisons);
    if (auto flags = arch.find("eflags"); flags && th->regs.valid(*flags))
      if (((*th->regs.get_u64(*flags) ^ ns.regs.eflags) & kComparedFlags & undefined.mask()) != 0) ++res.undefined_flag_eids;
    if (res.first) break;
    const ProcessState* proc = cursor.state().find_process(th->pid);
    if (!proc) return make_error(program, "EID " + std::to_string(eid) + ": no process in the reconstruction");
    for (const Range& r : *segments) {
      bytes.resize(r.size);
      if (!native.read_memory(r.addr, bytes))
        return make_error(program, "EID " + std::to_string(eid) + ": cannot read native memory");
      for (uint64_t a : unobservable) {
        if (a < r.addr || a >= r.addr + r.size) continue;
        uint8_t v = 0, ok = 0;
        proc->memory.read(a, &v, &ok, 1);
        if (ok) bytes[a - r.addr] = v;  // taken as equal
      }
      res.first = compare_memory(eid, r.addr, bytes, proc->memory, res.memory_comparisons);
      if (res.first) break;
    }
    if (res.first) break;
    ++res.native_steps;
    uint8_t code[16] = {};
    size_t code_size = sizeof code;
    while (code_size > 0 && !native.read_memory(ns.regs.rip, {code, code_size})) --code_size;
    uint64_t pc = ns.regs.rip;
    if (auto image = x87_environment_store(cs, {code, code_size}, ns.regs))
      for (uint64_t i = 12; i < 26; ++i) unobservable.push_back(*image + i);
    ++eid;
    if (!native.step()) break;
    if (auto err = native.hide_trap_flag({code, code_size}); !err.empty())
      return make_error(program, "EID " + std::to_string(eid) + ": " + err);
    undefined.after(pc, {code, code_size}, ns.regs.rcx);
    if (is_rep_string({code, code_size})) {
      NativeState after;
      if (auto err = native.read_state(after); !err.empty()) return make_error(program, err);
      if (after.regs.rip != pc && recorded_pc(eid) == pc) ++eid;  // the recorder's closing step
    }
  }
  if (!res.first && eid != res.recorded_steps)
    res.first = Difference{eid, "step count", std::to_string(eid) + " (native end)", std::to_string(res.recorded_steps)};
  if (native.exited()) res.native_exit = native.exit_code();
  res.native_stdout = slurp(base + ".stdout");
  return res;
}

}  // namespace ttd::fidelity
