#include "tools/recorder/missing_instructions.h"

#include <cstring>

#include <sys/random.h>

#include "tools/recorder/memory_operand.h"
#include "tools/recorder/sse_alignment.h"

namespace ttd::rec {

namespace {

constexpr x86_reg kCs16[16] = {X86_REG_AX,  X86_REG_CX,  X86_REG_DX,   X86_REG_BX,   X86_REG_SP,   X86_REG_BP,
                               X86_REG_SI,  X86_REG_DI,  X86_REG_R8W,  X86_REG_R9W,  X86_REG_R10W, X86_REG_R11W,
                               X86_REG_R12W, X86_REG_R13W, X86_REG_R14W, X86_REG_R15W};

// General register number 0-15 of a 64-, 32- or 16-bit name; -1 otherwise.
int gpr_number(x86_reg r) {
  if (int n = x86_gpr_number(r, true); n >= 0) return n;
  for (int i = 0; i < 16; ++i)
    if (r == kCs16[i]) return i;
  return -1;
}

uint64_t low_bytes(uint64_t v, uint32_t size) { return size >= 8 ? v : v & ((uint64_t(1) << (8 * size)) - 1); }

uint64_t byte_swap(uint64_t v, uint32_t size) {
  switch (size) {
    case 2: return __builtin_bswap16(uint16_t(v));
    case 4: return __builtin_bswap32(uint32_t(v));
    default: return __builtin_bswap64(v);
  }
}

uint64_t read_gpr(uc_engine* uc, int n) {
  uint64_t v = 0;
  uc_reg_read(uc, x86_gpr_unicorn_id(n), &v);
  return v;
}

// Writes the low `size` bytes of a general register as x86-64 does: a
// 32-bit write clears the upper half, a 16-bit one keeps the rest.
void write_gpr(uc_engine* uc, int n, uint32_t size, uint64_t v) {
  uint64_t full = v;
  if (size == 4) full = uint32_t(v);
  if (size == 2) full = (read_gpr(uc, n) & ~uint64_t(0xffff)) | uint16_t(v);
  uc_reg_write(uc, x86_gpr_unicorn_id(n), &full);
}

constexpr uint8_t kProtRead = 1, kProtWrite = 2;

// Why an access is refused (nullopt: allowed).
std::optional<uc_err> access_fault(const GuestMemory& mem, uint64_t addr, uint32_t size, bool write) {
  if (mem.accessible(addr, size, write ? kProtWrite : kProtRead)) return std::nullopt;
  const bool mapped = mem.accessible(addr, size, 0);
  if (write) return mapped ? UC_ERR_WRITE_PROT : UC_ERR_WRITE_UNMAPPED;
  return mapped ? UC_ERR_READ_PROT : UC_ERR_READ_UNMAPPED;
}

uint64_t deposit_bits(uint64_t v, uint64_t mask) {
  uint64_t out = 0;
  for (uint64_t bit = 1; mask; bit <<= 1, mask &= mask - 1)
    if (v & bit) out |= mask & -mask;
  return out;
}

uint64_t extract_bits(uint64_t v, uint64_t mask) {
  uint64_t out = 0;
  for (uint64_t bit = 1; mask; bit <<= 1, mask &= mask - 1)
    if (v & mask & -mask) out |= bit;
  return out;
}

constexpr uint64_t kCf = 0x1, kZf = 0x40;
constexpr uint64_t kStatusFlags = 0x8d5;  // CF PF AF ZF SF OF

// Clears the six status flags in EFLAGS, then sets those of `set`.
void set_status_flags(uc_engine* uc, uint64_t set) {
  uint64_t flags = 0;
  uc_reg_read(uc, UC_X86_REG_EFLAGS, &flags);
  flags = (flags & ~kStatusFlags) | set;
  uc_reg_write(uc, UC_X86_REG_EFLAGS, &flags);
}

// The low 64 bits and the high 64 bits of the carry-less product a * b.
void carry_less_multiply(uint64_t a, uint64_t b, uint64_t& low, uint64_t& high) {
  low = high = 0;
  for (int i = 0; i < 64; ++i) {
    if (!(b >> i & 1)) continue;
    low ^= a << i;
    if (i) high ^= a >> (64 - i);
  }
}

}  // namespace

OwnRun own_run(const cs_insn& insn) {
  switch (insn.id) {
    case X86_INS_POPCNT: case X86_INS_MOVBE: case X86_INS_PDEP: case X86_INS_PEXT:
    case X86_INS_PCLMULQDQ: case X86_INS_RDRAND: case X86_INS_RDSEED:
      return OwnRun::Run;
    default: break;
  }
  if (is_avx_family(insn)) return OwnRun::NoAvx;
  return needs_aligned_operand(insn) ? OwnRun::CheckAlignment : OwnRun::No;
}

MissingInstructions::~MissingInstructions() {
  if (opened_) cs_close(&cs_);
}

bool MissingInstructions::read_operand(const GuestMemory& mem, uint64_t addr, uint32_t size, Outcome& out,
                                       uint64_t& value) {
  out.access = Access{addr, size, false, 0};
  if ((out.fault = access_fault(mem, addr, size, false))) return false;
  uint8_t bytes[8] = {};
  if (!mem.read(addr, {bytes, size})) {
    out.fault = UC_ERR_READ_UNMAPPED;
    return false;
  }
  std::memcpy(&value, bytes, size);
  return true;
}

std::optional<MissingInstructions::Outcome> MissingInstructions::run(uc_engine* uc, GuestMemory& mem, uint64_t pc) {
  if (!opened_) {
    if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs_) != CS_ERR_OK) return std::nullopt;
    cs_option(cs_, CS_OPT_DETAIL, CS_OPT_ON);
    opened_ = true;
  }
  // Up to 15 bytes, fewer at the end of the mapping.
  uint8_t code[15] = {};
  size_t have = sizeof code;
  while (have > 0 && !mem.read(pc, {code, have})) --have;
  cs_insn* insn = nullptr;
  if (have == 0 || cs_disasm(cs_, code, have, pc, 1, &insn) != 1) return std::nullopt;
  struct Free {
    cs_insn* p;
    ~Free() { cs_free(p, 1); }
  } free_insn{insn};
  const cs_x86& x = insn->detail->x86;
  if (insn->id == X86_INS_PDEP || insn->id == X86_INS_PEXT) return run_bit_scatter(uc, mem, *insn);
  if (insn->id == X86_INS_PCLMULQDQ) return run_carry_less(uc, mem, *insn);
  if (insn->id == X86_INS_RDRAND || insn->id == X86_INS_RDSEED) return run_random(uc, *insn);
  const bool popcnt = insn->id == X86_INS_POPCNT, movbe = insn->id == X86_INS_MOVBE;
  if ((!popcnt && !movbe) || x.op_count != 2) return std::nullopt;
  const cs_x86_op& dst = x.operands[0];
  const cs_x86_op& src = x.operands[1];
  const uint32_t size = dst.size;
  if (size != 2 && size != 4 && size != 8) return std::nullopt;

  Outcome out;
  out.size = insn->size;
  const uint64_t next = pc + insn->size;
  std::optional<uint64_t> address;
  if (dst.type == X86_OP_MEM || src.type == X86_OP_MEM) {
    const MemoryOperand m = memory_operand(*insn);
    if (!m.valid) return std::nullopt;
    address = effective_address(uc, m, next);
  }
  // The source value.
  uint64_t value = 0;
  if (src.type == X86_OP_REG) {
    const int n = gpr_number(src.reg);
    if (n < 0) return std::nullopt;
    value = low_bytes(read_gpr(uc, n), size);
  } else if (src.type == X86_OP_MEM) {
    if (!read_operand(mem, *address, size, out, value)) return out;
  } else {
    return std::nullopt;
  }

  if (popcnt) {
    if (dst.type != X86_OP_REG) return std::nullopt;
    const int n = gpr_number(dst.reg);
    if (n < 0) return std::nullopt;
    write_gpr(uc, n, size, uint64_t(__builtin_popcountll(value)));
    // ZF says whether the source was 0; CF, PF, AF, SF and OF are cleared.
    set_status_flags(uc, value == 0 ? kZf : 0);
    return out;
  }
  // MOVBE: a load or a store with the bytes reversed; no flags.
  const uint64_t swapped = byte_swap(value, size);
  if (dst.type == X86_OP_REG) {
    const int n = gpr_number(dst.reg);
    if (n < 0) return std::nullopt;
    write_gpr(uc, n, size, swapped);
    return out;
  }
  out.access = Access{*address, size, true, swapped};
  if ((out.fault = access_fault(mem, *address, size, true))) return out;
  uint8_t bytes[8];
  std::memcpy(bytes, &swapped, size);
  if (!mem.write(*address, {bytes, size})) out.fault = UC_ERR_WRITE_UNMAPPED;
  return out;
}

std::optional<MissingInstructions::Outcome> MissingInstructions::run_bit_scatter(uc_engine* uc, GuestMemory& mem,
                                                                             const cs_insn& insn) {
  // pdep/pext dst, src, mask: VEX, 32 or 64 bits, the mask a register or
  // memory; the 32-bit forms clear the upper half. No flags.
  const cs_x86& x = insn.detail->x86;
  if (x.op_count != 3 || x.operands[0].type != X86_OP_REG || x.operands[1].type != X86_OP_REG) return std::nullopt;
  const uint32_t size = x.operands[0].size;
  const int dst = gpr_number(x.operands[0].reg), src = gpr_number(x.operands[1].reg);
  if ((size != 4 && size != 8) || dst < 0 || src < 0) return std::nullopt;
  Outcome out;
  out.size = insn.size;
  uint64_t mask = 0;
  const cs_x86_op& m = x.operands[2];
  if (m.type == X86_OP_REG) {
    const int n = gpr_number(m.reg);
    if (n < 0) return std::nullopt;
    mask = read_gpr(uc, n);
  } else if (m.type == X86_OP_MEM) {
    const MemoryOperand mo = memory_operand(insn);
    if (!mo.valid) return std::nullopt;
    if (!read_operand(mem, effective_address(uc, mo, insn.address + insn.size), size, out, mask)) return out;
  } else {
    return std::nullopt;
  }
  const uint64_t v = low_bytes(read_gpr(uc, src), size);
  mask = low_bytes(mask, size);
  write_gpr(uc, dst, size, insn.id == X86_INS_PDEP ? deposit_bits(v, mask) : extract_bits(v, mask));
  return out;
}

std::optional<MissingInstructions::Outcome> MissingInstructions::run_carry_less(uc_engine* uc, GuestMemory& mem,
                                                                            const cs_insn& insn) {
  // pclmulqdq xmm1, xmm2/m128, imm8: imm8 bit 0 picks xmm1's quadword,
  // bit 4 the source's; the 128-bit product replaces xmm1. No flags. A
  // legacy SSE m128 operand: #GP unless 16-byte aligned (sse_alignment.h).
  const cs_x86& x = insn.detail->x86;
  if (x.op_count != 3 || x.operands[0].type != X86_OP_REG || x.operands[2].type != X86_OP_IMM) return std::nullopt;
  const int dst = int(x.operands[0].reg) - X86_REG_XMM0;
  if (dst < 0 || dst > 15) return std::nullopt;
  Outcome out;
  out.size = insn.size;
  uint64_t a[2] = {}, b[2] = {};
  uc_reg_read(uc, UC_X86_REG_XMM0 + dst, a);
  const cs_x86_op& src = x.operands[1];
  if (src.type == X86_OP_REG) {
    const int n = int(src.reg) - X86_REG_XMM0;
    if (n < 0 || n > 15) return std::nullopt;
    uc_reg_read(uc, UC_X86_REG_XMM0 + n, b);
  } else if (src.type == X86_OP_MEM) {
    const MemoryOperand m = memory_operand(insn);
    if (!m.valid) return std::nullopt;
    const uint64_t at = effective_address(uc, m, insn.address + insn.size);
    if (at % kSseAlignment) {
      out.misaligned_at = at;
      return out;
    }
    if (!read_operand(mem, at, 8, out, b[0]) || !read_operand(mem, at + 8, 8, out, b[1])) return out;
    out.access = Access{at, 16, false, 0};
  } else {
    return std::nullopt;
  }
  const uint64_t imm = uint64_t(x.operands[2].imm);
  uint64_t product[2];
  carry_less_multiply(a[imm & 1], b[(imm >> 4) & 1], product[0], product[1]);
  uc_reg_write(uc, UC_X86_REG_XMM0 + dst, product);
  return out;
}

std::optional<MissingInstructions::Outcome> MissingInstructions::run_random(uc_engine* uc, const cs_insn& insn) {
  // rdrand/rdseed r16/r32/r64: random bits, CF = 1 (a value was ready),
  // OF SF ZF AF PF = 0. The trace keeps the value like any register write.
  const cs_x86& x = insn.detail->x86;
  if (x.op_count != 1 || x.operands[0].type != X86_OP_REG) return std::nullopt;
  const uint32_t size = x.operands[0].size;
  const int n = gpr_number(x.operands[0].reg);
  if (n < 0 || (size != 2 && size != 4 && size != 8)) return std::nullopt;
  uint64_t value = 0;
  if (getrandom(&value, sizeof value, 0) != ssize_t(sizeof value)) return std::nullopt;
  write_gpr(uc, n, size, value);
  set_status_flags(uc, kCf);
  Outcome out;
  out.size = insn.size;
  return out;
}

}  // namespace ttd::rec
