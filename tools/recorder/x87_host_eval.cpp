#include "tools/recorder/x87_host_eval.h"

#include <cstring>

#include "tools/recorder/x87_host_ops.h"

namespace ttd::rec {

namespace {

constexpr size_t kFcw = 0, kFsw = 2, kTags = 4, kMxcsr = 24, kSt = 32;
constexpr uint16_t kExceptionMasks = 0x3f;
constexpr uint16_t kPendingBits = 0x8080;  // FSW.B and FSW.ES: an unmasked exception is pending
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
  if (opcode < 0xd8 || opcode > 0xdf || insn.detail->x86.opcode[1] != 0) return {};
  const uint8_t modrm = insn.detail->x86.modrm;
  HostFpOp op;
  op.dst = opcode;
  if (modrm >= 0xc0) {
    if (!x87_runs_on_host(opcode, modrm)) return {};
    op.op = SseHostOp::X87Register;
    op.src = modrm;
  } else {
    const uint8_t reg = (modrm >> 3) & 7;
    if (x87_memory_form(opcode, reg).bytes == 0) return {};
    op.op = SseHostOp::X87Memory;
    op.src = reg;
  }
  return op;
}

void X87HostEval::before(uc_engine* uc) {
  have_addr_ = false;
  read_x87(uc, image_);
  fcw_ = get16(image_, kFcw);
  put16(image_, kFcw, uint16_t(fcw_ | kExceptionMasks));
  put16(image_, kFsw, uint16_t(get16(image_, kFsw) & ~kPendingBits));
  std::memcpy(image_.b + kMxcsr, &kHostMxcsr, 4);
}

std::optional<X87StoreCorrection> X87HostEval::after(uc_engine* uc, const HostFpOp& op) {
  std::optional<X87StoreCorrection> fix;
  if (op.op == SseHostOp::X87Register) {
    if (!run_x87_on_host(op.dst, op.src, image_)) return fix;
  } else {
    const X87MemoryForm form = x87_memory_form(op.dst, op.src);
    if (!have_addr_) return fix;
    alignas(16) uint8_t operand[16] = {};
    // A load's operand is still in memory; a store's bytes are Unicorn's.
    if (uc_mem_read(uc, addr_, operand, form.bytes) != UC_ERR_OK) return fix;
    alignas(16) uint8_t emulated[16];
    std::memcpy(emulated, operand, sizeof operand);
    if (!run_x87_memory_on_host(op.dst, op.src, image_, operand)) return fix;
    if (form.stores && std::memcmp(operand, emulated, form.bytes) != 0 &&
        uc_mem_write(uc, addr_, operand, form.bytes) == UC_ERR_OK) {
      fix.emplace();
      fix->addr = addr_;
      fix->size = form.bytes;
      std::memcpy(fix->bytes, operand, form.bytes);
    }
  }
  FxsaveImage emulated;
  read_x87(uc, emulated);
  // The guest's own control word, and its pending bits as Unicorn has them.
  put16(image_, kFcw, fcw_);
  put16(image_, kFsw, uint16_t((get16(image_, kFsw) & ~kPendingBits) | (get16(emulated, kFsw) & kPendingBits)));
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
