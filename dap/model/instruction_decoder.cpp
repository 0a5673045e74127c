#include "dap/model/instruction_decoder.h"

#include <capstone/capstone.h>

#include <cstdio>
#include <cstring>

namespace ttd::dap {

InstructionDecoder::InstructionDecoder(const ArchDesc& arch) : arch_(arch.id) {
  csh h = 0;
  if (cs_open(cs_arch(arch.cs_arch), cs_mode(arch.cs_mode), &h) == CS_ERR_OK) {
    cs_option(h, CS_OPT_DETAIL, CS_OPT_ON);
    handle_ = h;
  }
}

InstructionDecoder::~InstructionDecoder() {
  if (handle_) {
    csh h = handle_;
    cs_close(&h);
  }
}

size_t InstructionDecoder::max_length() const { return arch_ == ArchId::X86_64 || arch_ == ArchId::I386 ? 15 : 4; }

namespace {
bool in_group(const cs_insn* insn, uint8_t group) {
  if (!insn->detail) return false;
  for (uint8_t i = 0; i < insn->detail->groups_count; ++i)
    if (insn->detail->groups[i] == group) return true;
  return false;
}
}  // namespace

Flow InstructionDecoder::flow(uint64_t pc) {
  if (auto it = flows_.find(pc); it != flows_.end()) return it->second;
  Flow f = Flow::Unknown;
  uint8_t buf[16];
  size_t n = reader_ && handle_ ? reader_(pc, buf, max_length()) : 0;
  cs_insn* insn = nullptr;
  if (n > 0 && cs_disasm(handle_, buf, n, pc, 1, &insn) == 1) {
    f = Flow::Other;
    if (in_group(insn, CS_GRP_CALL)) f = Flow::Call;
    else if (in_group(insn, CS_GRP_RET)) f = Flow::Return;
    else if (arch_ == ArchId::AArch64 || arch_ == ArchId::Arm) {
      // Capstone 4 does not put bl/blr/ret in the call/ret groups on arm.
      std::string m = insn->mnemonic;
      if (m == "bl" || m == "blr" || m == "blx") f = Flow::Call;
      else if (m == "ret") f = Flow::Return;
    }
    cs_free(insn, 1);
  }
  flows_.emplace(pc, f);
  return f;
}

std::optional<DecodedInstruction> InstructionDecoder::decode(uint64_t pc) {
  uint8_t buf[16];
  size_t n = reader_ && handle_ ? reader_(pc, buf, max_length()) : 0;
  if (n == 0) return std::nullopt;
  cs_insn* insn = nullptr;
  if (cs_disasm(handle_, buf, n, pc, 1, &insn) != 1) return std::nullopt;
  DecodedInstruction d;
  d.addr = pc;
  d.size = insn->size;
  d.text = insn->mnemonic;
  if (insn->op_str[0]) d.text += std::string(" ") + insn->op_str;
  for (uint16_t i = 0; i < insn->size; ++i) {
    char h[4];
    std::snprintf(h, sizeof h, "%02x", insn->bytes[i]);
    d.bytes += h;
  }
  cs_free(insn, 1);
  return d;
}

}  // namespace ttd::dap
