#include "engine/query/instruction_inputs.h"

#include <capstone/capstone.h>

#include <algorithm>
#include <cctype>

namespace ttd::query {

const char* input_role_name(InputRole r) {
  switch (r) {
    case InputRole::Data: return "data";
    case InputRole::Address: return "address";
    case InputRole::Flags: return "flags";
    case InputRole::Implicit: return "implicit";
    case InputRole::Count: return "count";
  }
  return "?";
}

namespace {

constexpr int kUnmapped = -1, kZeroReg = -2, kPcReg = -3;

bool supported(ArchId a) { return a == ArchId::X86_64 || a == ArchId::I386 || a == ArchId::AArch64 || a == ArchId::Arm; }

int reg_ending(ArchId a) {
  switch (a) {
    case ArchId::X86_64:
    case ArchId::I386: return X86_REG_ENDING;
    case ArchId::AArch64: return ARM64_REG_ENDING;
    case ArchId::Arm: return ARM_REG_ENDING;
    default: return 0;
  }
}

// The full register a Capstone sub-register name stands for, by the
// architecture's naming rules ("" when there is no rule).
std::string full_name(ArchId a, std::string n) {
  for (auto& c : n) c = char(std::tolower(static_cast<unsigned char>(c)));
  if (a == ArchId::X86_64 || a == ArchId::I386) {
    const std::string wide = a == ArchId::X86_64 ? "r" : "e";
    static const char* legacy[] = {"ax", "bx", "cx", "dx", "si", "di", "bp", "sp", "ip"};
    for (const char* l : legacy) {
      std::string s = l;
      if (n == s || n == "e" + s || n == "r" + s) return wide + s;
    }
    if (n.size() == 2 && std::string("abcd").find(n[0]) != std::string::npos && (n[1] == 'l' || n[1] == 'h'))
      return wide + n[0] + "x";
    if (n == "sil" || n == "dil" || n == "bpl" || n == "spl") return wide + n.substr(0, 2);
    if (n.size() >= 3 && n[0] == 'r' && std::isdigit(static_cast<unsigned char>(n[1])) &&
        (n.back() == 'd' || n.back() == 'w' || n.back() == 'b'))
      return n.substr(0, n.size() - 1);
    if ((n.rfind("ymm", 0) == 0 || n.rfind("zmm", 0) == 0)) return "xmm" + n.substr(3);
    if (n.rfind("st(", 0) == 0 && n.size() == 5) return std::string("st") + n[3];
    return "";
  }
  if (a == ArchId::AArch64) {
    if (n == "wsp") return "sp";
    if (n.size() >= 2 && std::string("wbhsdq").find(n[0]) != std::string::npos &&
        std::all_of(n.begin() + 1, n.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
      return (n[0] == 'w' ? "x" : "v") + n.substr(1);
    return "";
  }
  if (a == ArchId::Arm) {
    if (n == "sb") return "r9";
    if (n == "sl") return "r10";
    if (n == "ip") return "r12";
    if (n == "apsr" || n == "apsr_nzcv") return "cpsr";
  }
  return "";
}

bool is_flags(const ArchDesc& a, uint16_t r) {
  const std::string& n = a.regs[r].name;
  return n == "eflags" || n == "cpsr";
}

}  // namespace

struct InstructionInputDecoder::Impl {
  const ArchDesc& arch;
  csh h = 0;
  bool open = false;
  std::vector<int> map;  // Capstone register id -> architecture index, or kUnmapped / kZeroReg / kPcReg

  explicit Impl(const ArchDesc& a) : arch(a) {
    if (!supported(a.id)) return;
    if (cs_open(cs_arch(a.cs_arch), cs_mode(a.cs_mode), &h) != CS_ERR_OK) return;
    cs_option(h, CS_OPT_DETAIL, CS_OPT_ON);
    open = true;
    map.assign(size_t(reg_ending(a.id)), kUnmapped);
    for (int id = 1; id < int(map.size()); ++id) {
      const char* cn = cs_reg_name(h, unsigned(id));
      if (!cn) continue;
      std::string n = cn;
      if (n == "xzr" || n == "wzr") {
        map[size_t(id)] = kZeroReg;
        continue;
      }
      auto r = a.find(n);
      if (!r) {
        std::string f = full_name(a.id, n);
        if (!f.empty()) r = a.find(f);
      }
      if (r) map[size_t(id)] = *r == a.pc_index ? kPcReg : int(*r);
    }
    // The table's own Capstone ids win over names (aarch64's cpsr is NZCV).
    for (size_t i = 0; i < a.regs.size(); ++i) {
      int id = a.regs[i].capstone_id;
      if (id > 0 && size_t(id) < map.size()) map[size_t(id)] = i == a.pc_index ? kPcReg : int(i);
    }
    if (a.id == ArchId::X86_64 || a.id == ArchId::I386) {
      // Segment overrides on x86-64 address through the base registers.
      if (auto fs = a.find("fs_base")) map[X86_REG_FS] = int(*fs);
      if (auto gs = a.find("gs_base")) map[X86_REG_GS] = int(*gs);
    }
  }
  ~Impl() {
    if (open) cs_close(&h);
  }

  std::string reg_name(unsigned id) const {
    const char* n = cs_reg_name(h, id);
    return n ? n : "reg" + std::to_string(id);
  }

  void add_reg(DecodedInstruction& d, unsigned id, InputRole role, uint64_t pc_value) const {
    int m = id < map.size() ? map[id] : kUnmapped;
    InstructionInput in;
    in.role = role;
    if (m == kZeroReg) {
      in.kind = InstructionInput::Kind::Constant;
      in.name = "zero register";
    } else if (m == kPcReg) {
      in.kind = InstructionInput::Kind::Constant;
      in.name = "pc";
      in.value = pc_value;
    } else if (m == kUnmapped) {
      in.kind = InstructionInput::Kind::Unmapped;
      in.name = reg_name(id);
    } else {
      in.reg = uint16_t(m);
      if (is_flags(arch, in.reg)) in.role = InputRole::Flags;
    }
    for (const auto& o : d.inputs)
      if (o.kind == in.kind && o.reg == in.reg && o.name == in.name && o.kind != InstructionInput::Kind::Constant) return;
    d.inputs.push_back(std::move(in));
  }
  void add_const(DecodedInstruction& d, uint64_t v, const char* what) const {
    InstructionInput in;
    in.kind = InstructionInput::Kind::Constant;
    in.value = v;
    in.name = what;
    d.inputs.push_back(std::move(in));
  }
  void add_write(DecodedInstruction& d, unsigned id) const {
    int m = id < map.size() ? map[id] : kUnmapped;
    if (m >= 0 && m < 256) d.writes[size_t(m) >> 6] |= 1ull << (m & 63);
  }

  // Explicit operands: data registers, address registers, immediates and
  // whether memory is read. Returns the address registers' Capstone ids.
  void operands(const cs_insn& i, DecodedInstruction& d, std::vector<unsigned>& data, std::vector<unsigned>& addr) const {
    const cs_detail& det = *i.detail;
    auto push = [](std::vector<unsigned>& v, unsigned r) {
      if (r && std::find(v.begin(), v.end(), r) == v.end()) v.push_back(r);
    };
    if (arch.id == ArchId::X86_64 || arch.id == ArchId::I386) {
      const bool lea = i.id == X86_INS_LEA;
      for (uint8_t k = 0; k < det.x86.op_count; ++k) {
        const cs_x86_op& op = det.x86.operands[k];
        if (op.type == X86_OP_REG && (op.access & CS_AC_READ)) push(data, op.reg);
        if (op.type == X86_OP_IMM) add_const(d, uint64_t(op.imm), "immediate");
        if (op.type == X86_OP_MEM) {
          auto& into = lea ? data : addr;
          if (op.mem.segment == X86_REG_FS || op.mem.segment == X86_REG_GS) push(into, op.mem.segment);
          push(into, op.mem.base);
          push(into, op.mem.index);
          if (!lea && (op.access & CS_AC_READ)) d.reads_memory = true;
        }
      }
    } else if (arch.id == ArchId::AArch64) {
      for (uint8_t k = 0; k < det.arm64.op_count; ++k) {
        const cs_arm64_op& op = det.arm64.operands[k];
        if (op.type == ARM64_OP_REG && (op.access & CS_AC_READ)) push(data, op.reg);
        if (op.type == ARM64_OP_IMM || op.type == ARM64_OP_CIMM) add_const(d, uint64_t(op.imm), "immediate");
        if (op.type == ARM64_OP_MEM) {
          push(addr, op.mem.base);
          push(addr, op.mem.index);
          if (op.access & CS_AC_READ) d.reads_memory = true;
        }
      }
    } else if (arch.id == ArchId::Arm) {
      for (uint8_t k = 0; k < det.arm.op_count; ++k) {
        const cs_arm_op& op = det.arm.operands[k];
        if (op.type == ARM_OP_REG && (op.access & CS_AC_READ)) push(data, unsigned(op.reg));
        if (op.type == ARM_OP_IMM) add_const(d, uint64_t(int64_t(op.imm)), "immediate");
        if (op.type == ARM_OP_MEM) {
          push(addr, unsigned(op.mem.base));
          push(addr, unsigned(op.mem.index));
          if (op.access & CS_AC_READ) d.reads_memory = true;
        }
      }
    }
  }

  bool zero_idiom(const cs_insn& i) const {
    if (arch.id != ArchId::X86_64 && arch.id != ArchId::I386) return false;
    switch (i.id) {
      case X86_INS_XOR:
      case X86_INS_SUB:
      case X86_INS_PXOR:
      case X86_INS_XORPS:
      case X86_INS_XORPD:
      case X86_INS_VPXOR:
      case X86_INS_VXORPS:
      case X86_INS_VXORPD: break;
      default: return false;
    }
    const cs_x86& x = i.detail->x86;
    if (x.op_count < 2) return false;
    for (uint8_t k = 0; k < x.op_count; ++k)
      if (x.operands[k].type != X86_OP_REG || x.operands[k].reg != x.operands[0].reg) return false;
    return true;
  }

  DecodedInstruction decode(uint64_t pc, std::span<const uint8_t> code) const {
    DecodedInstruction d;
    if (!supported(arch.id)) {
      d.status = DecodedInstruction::Status::Unsupported;
      d.note = "operand reads are not decoded on " + arch.name + " (Capstone 4 gives no operand access there)";
      return d;
    }
    if (code.empty()) {
      d.status = DecodedInstruction::Status::NoCode;
      d.note = "no code bytes at the pc";
      return d;
    }
    cs_insn* insn = nullptr;
    size_t n = open ? cs_disasm(h, code.data(), code.size(), pc, 1, &insn) : 0;
    if (n == 0) {
      d.status = DecodedInstruction::Status::Undecodable;
      d.note = open ? "the code bytes at the pc do not decode" : "Capstone could not open " + arch.name;
      return d;
    }
    const cs_insn& i = insn[0];
    d.status = DecodedInstruction::Status::Ok;
    d.size = i.size;
    d.text = i.mnemonic;
    if (i.op_str[0]) d.text += std::string(" ") + i.op_str;

    cs_regs rd, wr;
    uint8_t nrd = 0, nwr = 0;
    if (cs_regs_access(h, &i, rd, &nrd, wr, &nwr) != CS_ERR_OK) nrd = nwr = 0;
    for (uint8_t k = 0; k < nwr; ++k) add_write(d, wr[k]);

    if (zero_idiom(i)) {
      d.constant_result = true;
      add_const(d, 0, "zeroing idiom");
      cs_free(insn, n);
      return d;
    }
    std::vector<unsigned> data, addr;
    operands(i, d, data, addr);
    const uint64_t next_pc = pc + i.size;
    for (unsigned r : data) add_reg(d, r, InputRole::Data, pc);
    for (unsigned r : addr) add_reg(d, r, InputRole::Address, pc);
    const bool x86 = arch.id == ArchId::X86_64 || arch.id == ArchId::I386;
    const bool rep = x86 && (i.detail->x86.prefix[0] == X86_PREFIX_REP || i.detail->x86.prefix[0] == X86_PREFIX_REPNE);
    for (uint8_t k = 0; k < nrd; ++k) {
      unsigned r = rd[k];
      if (std::find(data.begin(), data.end(), r) != data.end() || std::find(addr.begin(), addr.end(), r) != addr.end())
        continue;
      bool count = rep && (r == X86_REG_RCX || r == X86_REG_ECX || r == X86_REG_CX);
      add_reg(d, r, count ? InputRole::Count : InputRole::Implicit, pc);
    }
    if (rep) {
      add_reg(d, arch.id == ArchId::X86_64 ? X86_REG_RCX : X86_REG_ECX, InputRole::Count, pc);
      add_write(d, arch.id == ArchId::X86_64 ? X86_REG_RCX : X86_REG_ECX);
    }
    bool call = false, ret = false;
    for (uint8_t k = 0; k < i.detail->groups_count; ++k) {
      call |= i.detail->groups[k] == CS_GRP_CALL;
      ret |= i.detail->groups[k] == CS_GRP_RET;
    }
    // A call stores (x86) or links (RISC) its return address: a constant.
    if (call) {
      // The target and the pc decide where control goes, not what is
      // stored: the return address stands for both.
      std::erase_if(d.inputs, [](const InstructionInput& in) {
        return in.kind == InstructionInput::Kind::Constant && (in.name == "immediate" || in.name == "pc");
      });
      add_const(d, next_pc, "return address");
    }
    // pop, ret and leave read the stack without a memory operand.
    if (x86 && (ret || i.id == X86_INS_POP || i.id == X86_INS_LEAVE || i.id == X86_INS_POPFQ || i.id == X86_INS_POPF))
      d.reads_memory = true;
    if (x86 && (i.id == X86_INS_MOVSB || i.id == X86_INS_MOVSW || i.id == X86_INS_MOVSD || i.id == X86_INS_MOVSQ ||
                i.id == X86_INS_LODSB || i.id == X86_INS_LODSW || i.id == X86_INS_LODSD || i.id == X86_INS_LODSQ ||
                i.id == X86_INS_CMPSB || i.id == X86_INS_SCASB))
      d.reads_memory = true;
    // Capstone 4 lists no implicit register writes for some forms: push,
    // pop, call and ret always move the stack pointer.
    if (x86 && (call || ret || i.id == X86_INS_PUSH || i.id == X86_INS_POP)) {
      d.writes[arch.sp_index >> 6] |= 1ull << (arch.sp_index & 63);
      bool has_sp = std::any_of(d.inputs.begin(), d.inputs.end(), [&](const InstructionInput& in) {
        return in.kind == InstructionInput::Kind::Register && in.reg == arch.sp_index;
      });
      if (!has_sp) add_reg(d, arch.id == ArchId::X86_64 ? X86_REG_RSP : X86_REG_ESP, InputRole::Implicit, pc);
    }
    cs_free(insn, n);
    return d;
  }
};

InstructionInputDecoder::InstructionInputDecoder(const ArchDesc& arch) : impl_(std::make_unique<Impl>(arch)) {}
InstructionInputDecoder::~InstructionInputDecoder() = default;

DecodedInstruction InstructionInputDecoder::decode(uint64_t pc, std::span<const uint8_t> code) const {
  return impl_->decode(pc, code);
}

size_t InstructionInputDecoder::max_insn_bytes() const {
  return impl_->arch.id == ArchId::X86_64 || impl_->arch.id == ArchId::I386 ? 15 : 4;
}

}  // namespace ttd::query
