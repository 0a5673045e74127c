#include "formats/umtrace/testing/x86_instruction_decoder.h"

#include <capstone/capstone.h>

#include <algorithm>

#include "formats/umtrace/testing/x86_register_catalog.h"

namespace ttd::fmt::umtrace {

namespace {

// insRec.Type from the instruction (specification section 7.3.3).
uint8_t instruction_type(const cs_insn& in, bool mode64) {
  const cs_x86& x = in.detail->x86;
  switch (in.id) {
    case X86_INS_SYSCALL: return mode64 ? 3 : 2;
    case X86_INS_SYSENTER: return 2;
    case X86_INS_INT:
      return (x.op_count == 1 && x.operands[0].type == X86_OP_IMM && x.operands[0].imm == 0x2e) ? 4 : 1;
    case X86_INS_INT3:
    case X86_INS_INTO:
    case X86_INS_INT1: return 1;
    case X86_INS_NOP:
    case X86_INS_FNOP: return 8;
    case X86_INS_PREFETCH:
    case X86_INS_PREFETCHNTA:
    case X86_INS_PREFETCHT0:
    case X86_INS_PREFETCHT1:
    case X86_INS_PREFETCHT2:
    case X86_INS_PREFETCHW: return 9;
    default: return 0;
  }
}

bool has_group(const cs_insn& in, uint8_t g) {
  const cs_detail& d = *in.detail;
  return std::find(d.groups, d.groups + d.groups_count, g) != d.groups + d.groups_count;
}

}  // namespace

Result<std::unique_ptr<X86InstructionDecoder>> X86InstructionDecoder::create(bool mode64) {
  csh h = 0;
  if (cs_open(CS_ARCH_X86, mode64 ? CS_MODE_64 : CS_MODE_32, &h) != CS_ERR_OK)
    return make_error("capstone", "cannot open an x86 disassembler");
  cs_option(h, CS_OPT_DETAIL, CS_OPT_ON);
  std::unique_ptr<X86InstructionDecoder> d(new X86InstructionDecoder());
  d->handle_ = h;
  d->mode64_ = mode64;
  return d;
}

X86InstructionDecoder::~X86InstructionDecoder() {
  csh h = handle_;
  if (h) cs_close(&h);
}

Result<const X86Instruction*> X86InstructionDecoder::decode(uint64_t address, std::span<const uint8_t> code) {
  const csh h = handle_;
  cs_insn* in = nullptr;
  const size_t n = cs_disasm(h, code.data(), std::min<size_t>(code.size(), 15), address, 1, &in);
  if (n == 0) return make_error("capstone", "cannot decode the instruction at " + std::to_string(address));
  std::vector<uint8_t> bytes(code.begin(), code.begin() + in->size);
  auto key = std::make_pair(address, bytes);
  if (auto it = cache_.find(key); it != cache_.end()) {
    cs_free(in, n);
    return &it->second;
  }
  const X86RegisterCatalog& cat = X86RegisterCatalog::instance();
  const uint16_t ip_family = cat.entry(*cat.find("IP", mode64_)).family;
  auto reg_id = [&](unsigned cs_reg) -> uint16_t {
    if (cs_reg == X86_REG_INVALID) return 0;
    auto id = cat.find(cs_reg_name(h, cs_reg), mode64_);
    if (!id || cat.entry(*id).family == ip_family) return 0;
    return *id;
  };

  X86Instruction out;
  out.address = address;
  out.code = std::move(bytes);
  out.mnemonic = in->mnemonic;
  out.text = in->op_str[0] ? std::string(in->mnemonic) + " " + in->op_str : std::string(in->mnemonic);
  out.id = in->id;
  out.category = in->detail->groups_count ? in->detail->groups[0] : 0;
  out.ins_type = instruction_type(*in, mode64_);
  const cs_x86& x = in->detail->x86;
  out.addr_size = x.addr_size ? x.addr_size : (mode64_ ? 8 : 4);
  out.string_op = out.mnemonic.compare(0, 3, "rep") == 0;
  out.rep = out.string_op && x.prefix[0] == X86_PREFIX_REP;
  out.repne = out.string_op && x.prefix[0] == X86_PREFIX_REPNE;
  out.lock = x.prefix[0] == X86_PREFIX_LOCK;
  out.lea = in->id == X86_INS_LEA;
  out.conditional_jump = has_group(*in, X86_GRP_JUMP) && in->id != X86_INS_JMP && in->id != X86_INS_LJMP;
  out.conditional_move = out.mnemonic.compare(0, 4, "cmov") == 0;
  out.branch = has_group(*in, X86_GRP_JUMP) || has_group(*in, X86_GRP_CALL) || has_group(*in, X86_GRP_RET) ||
               has_group(*in, X86_GRP_INT) || has_group(*in, X86_GRP_IRET);

  for (uint8_t i = 0; i < x.op_count; ++i) {
    const cs_x86_op& o = x.operands[i];
    X86Operand op;
    op.size = o.size;
    op.read = o.access & CS_AC_READ;
    op.write = o.access & CS_AC_WRITE;
    if (o.type == X86_OP_REG) {
      op.kind = X86Operand::Kind::Register;
      op.reg = reg_id(o.reg);
      if (!op.reg) continue;  // rip, control registers...: not modelled
    } else if (o.type == X86_OP_IMM) {
      op.kind = X86Operand::Kind::Immediate;
      op.imm = uint64_t(o.imm);  // Capstone already made branch targets absolute
      op.read = true;
    } else if (o.type == X86_OP_MEM) {
      op.kind = X86Operand::Kind::Memory;
      op.seg = reg_id(o.mem.segment);
      op.rip_relative = o.mem.base == X86_REG_RIP || o.mem.base == X86_REG_EIP;
      op.base = reg_id(o.mem.base);
      op.index = reg_id(o.mem.index);
      op.scale = uint8_t(o.mem.scale);
      op.disp = o.mem.disp;
      // A memory operand Capstone gives no access for (call/jmp targets
      // through memory) is read.
      if (!op.read && !op.write) op.read = true;
    } else {
      continue;
    }
    out.operands.push_back(op);
  }

  cs_regs r, w;
  uint8_t rc = 0, wc = 0;
  if (cs_regs_access(h, in, r, &rc, w, &wc) == CS_ERR_OK) {
    for (uint8_t i = 0; i < rc; ++i)
      if (uint16_t id = reg_id(r[i])) out.reads.push_back(id);
    for (uint8_t i = 0; i < wc; ++i)
      if (uint16_t id = reg_id(w[i])) out.writes.push_back(id);
  }
  cs_free(in, n);
  return &cache_.emplace(std::move(key), std::move(out)).first->second;
}

}  // namespace ttd::fmt::umtrace
