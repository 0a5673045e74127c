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
