#include "tools/recorder/x87_host_eval.h"

#include <cstring>

#include "tools/recorder/x87_host_ops.h"

namespace ttd::rec {

namespace {

constexpr size_t kFcw = 0, kFsw = 2, kTags = 4, kMxcsr = 24, kSt = 32;
constexpr uint32_t kHostMxcsr = 0x1f80;

uint16_t get16(const FxsaveImage& m, size_t off) {
  uint16_t v;
  std::memcpy(&v, m.b + off, 2);
  return v;
}
void put16(FxsaveImage& m, size_t off, uint16_t v) { std::memcpy(m.b + off, &v, 2); }

// The stack an x87 instruction leaves: TOP, the tags, ST0-7 (10 bytes each).
bool same_stack(const FxsaveImage& a, const FxsaveImage& b) {
  constexpr uint16_t kTop = 0x3800;
  if ((get16(a, kFsw) & kTop) != (get16(b, kFsw) & kTop) || a.b[kTags] != b.b[kTags]) return false;
  for (size_t i = 0; i < 8; ++i)
    if (std::memcmp(a.b + kSt + 16 * i, b.b + kSt + 16 * i, 10) != 0) return false;
  return true;
}

}  // namespace

HostFpOp classify_x87(const cs_insn& insn) {
  // The opcode and ModRM byte are all the host needs: a memory operand
  // comes from the access hook wherever prefixes, SIB or displacement put it.
  if (!insn.detail) return {};
  const uint8_t opcode = insn.detail->x86.opcode[0];
  HostFpOp op;
  if (opcode == 0x9b && insn.size == 1) {  // fwait
    op.op = HostFpOpcode::X87Wait;
    return op;
  }
  // MMX instructions signal a pending x87 exception too (their registers
  // are the x87 stack's); Capstone's MMX group is the mm-register forms.
  for (uint8_t g = 0; g < insn.detail->groups_count; ++g) {
    if (insn.detail->groups[g] == X86_GRP_MMX) {
      op.op = HostFpOpcode::X87Wait;
      return op;
    }
  }
  // So do SSE instructions with an mm register operand (cvtpi2ps, cvtps2pi,
  // movq2dq ...); their memory forms do not touch the x87 state, but
  // Unicorn enters MMX mode for cvtpi2ps/cvtpi2pd from memory too (TOP 0,
  // every tag valid): the stack is put back after them.
  for (uint8_t i = 0; i < insn.detail->x86.op_count; ++i) {
    const cs_x86_op& o = insn.detail->x86.operands[i];
    if (o.type == X86_OP_REG && o.reg >= X86_REG_MM0 && o.reg <= X86_REG_MM7) {
      op.op = HostFpOpcode::X87Wait;
      return op;
    }
  }
  if (insn.id == X86_INS_CVTPI2PS || insn.id == X86_INS_CVTPI2PD) {
    op.op = HostFpOpcode::KeepX87Stack;
    return op;
  }
  if (opcode < 0xd8 || opcode > 0xdf || insn.detail->x86.opcode[1] != 0) return {};
  const uint8_t modrm = insn.detail->x86.modrm;
  op.dst = opcode;
  if (modrm >= 0xc0) {
    // fneni, fndisi, fnclex, fninit, fnsetpm and fnstsw ax do not wait.
    if ((opcode == 0xdb && modrm >= 0xe0 && modrm <= 0xe4) || (opcode == 0xdf && modrm == 0xe0)) return {};
    op.op = x87_runs_on_host(opcode, modrm) ? HostFpOpcode::X87Register : HostFpOpcode::X87Wait;
    op.src = modrm;
  } else {
    const uint8_t reg = (modrm >> 3) & 7;
    op.src = reg;
    if (x87_memory_form(opcode, reg).bytes != 0) op.op = HostFpOpcode::X87Memory;
    else if ((opcode == 0xd9 && (reg == 4 || reg == 5)) || (opcode == 0xdd && reg == 4)) op.op = HostFpOpcode::X87Wait;  // fldenv, fldcw, frstor
    else return {};  // fnstenv, fnstcw, fnsave, fnstsw m16: no wait
  }
  return op;
}

uint16_t X87HostEval::before(uc_engine* uc) {
  have_addr_ = have_old_ = false;
  read_x87(uc, image_);
  const uint16_t fsw = get16(image_, kFsw);
  const uint16_t unmasked = x87_unmasked(fsw, get16(image_, kFcw));
  pending_ = unmasked != 0;
  // With nothing unmasked pending the host may run the instruction, under
  // the guest's control word; an ES without such a flag (a loaded
  // environment that says so) would trap it, so it goes.
  put16(image_, kFsw, uint16_t(fsw & ~kX87PendingBits));
  std::memcpy(image_.b + kMxcsr, &kHostMxcsr, 4);
  return unmasked;
}

void X87HostEval::on_access(uc_engine* uc, const HostFpOp& op, uint64_t addr) {
  if (have_addr_ || op.op != HostFpOpcode::X87Memory) return;
  addr_ = addr;
  have_addr_ = true;
  const X87MemoryForm form = x87_memory_form(op.dst, op.src);
  if (form.stores) have_old_ = uc_mem_read(uc, addr, old_, form.bytes) == UC_ERR_OK;
}

std::optional<X87StoreCorrection> X87HostEval::after(uc_engine* uc, const HostFpOp& op) {
  std::optional<X87StoreCorrection> fix;
  if (pending_ || op.op == HostFpOpcode::X87Wait) return fix;
  if (op.op == HostFpOpcode::X87Register) {
    if (!run_x87_on_host(op.dst, op.src, image_)) return fix;
  } else {
    const X87MemoryForm form = x87_memory_form(op.dst, op.src);
    if (!have_addr_ || (form.stores && !have_old_)) return fix;
    // A load's operand is still in memory; a store's bytes there are
    // Unicorn's, and the host stores over the old ones (or leaves them, if
    // an unmasked exception suppresses the store).
    alignas(16) uint8_t emulated[16] = {};
    if (uc_mem_read(uc, addr_, emulated, form.bytes) != UC_ERR_OK) return fix;
    alignas(16) uint8_t operand[16];
    std::memcpy(operand, form.stores ? old_ : emulated, sizeof operand);
    if (!run_x87_memory_on_host(op.dst, op.src, image_, operand)) return fix;
    if (form.stores && std::memcmp(operand, emulated, form.bytes) != 0 &&
        uc_mem_write(uc, addr_, operand, form.bytes) == UC_ERR_OK) {
      fix.emplace();
      fix->addr = addr_;
      fix->size = form.bytes;
      std::memcpy(fix->bytes, operand, form.bytes);
    }
  }
  // The host ran under the guest's control word: its status word, ES and B
  // included, is the CPU's.
  FxsaveImage emulated;
  read_x87(uc, emulated);
  if (!same_stack(image_, emulated)) {
    write_x87(uc, image_);
  } else if (get16(image_, kFsw) != get16(emulated, kFsw)) {
    // The common difference: flags and condition codes (C1 says whether an
    // inexact result was rounded up; Unicorn leaves it as it was).
    const uint64_t fsw = get16(image_, kFsw);
    uc_reg_write(uc, UC_X86_REG_FPSW, &fsw);
  }
  return fix;
}

}  // namespace ttd::rec
