#include "tools/recorder/cpuid_fixup.h"

#include <string>

namespace ttd::rec {

namespace {

constexpr uint64_t kCodeAt = 0x1000;
constexpr uint8_t kCpuid[] = {0x0f, 0xa2};

}  // namespace

CpuidFixup::~CpuidFixup() {
  if (uc_ && hook_) uc_hook_del(uc_, hook_);
  if (scratch_) uc_close(scratch_);
}

Status CpuidFixup::install(uc_engine* uc) {
  if (uc_open(UC_ARCH_X86, UC_MODE_64, &scratch_) != UC_ERR_OK ||
      uc_mem_map(scratch_, kCodeAt, 0x1000, UC_PROT_ALL) != UC_ERR_OK ||
      uc_mem_write(scratch_, kCodeAt, kCpuid, sizeof kCpuid) != UC_ERR_OK)
    return make_error("emulator", "cannot set up the CPUID helper");
  uc_ = uc;
  if (uc_hook_add(uc, &hook_, UC_HOOK_INSN, (void*)&on_cpuid, this, 1, 0, UC_X86_INS_CPUID) != UC_ERR_OK)
    return make_error("emulator", "cannot hook the cpuid instruction");
  return {};
}

int CpuidFixup::on_cpuid(uc_engine* uc, void* p) {
  auto* self = static_cast<CpuidFixup*>(p);
  const int regs[4] = {UC_X86_REG_RAX, UC_X86_REG_RBX, UC_X86_REG_RCX, UC_X86_REG_RDX};
  uint64_t leaf = 0, sub = 0;
  uc_reg_read(uc, UC_X86_REG_RAX, &leaf);
  uc_reg_read(uc, UC_X86_REG_RCX, &sub);
  leaf &= 0xffffffff;
  sub &= 0xffffffff;
  uc_reg_write(self->scratch_, UC_X86_REG_RAX, &leaf);
  uc_reg_write(self->scratch_, UC_X86_REG_RCX, &sub);
  if (uc_emu_start(self->scratch_, kCodeAt, kCodeAt + sizeof kCpuid, 0, 1) != UC_ERR_OK) return 0;  // let Unicorn answer
  uint64_t out[4];
  for (int i = 0; i < 4; ++i) uc_reg_read(self->scratch_, regs[i], &out[i]);
  if (leaf == 1) {
    out[2] |= kLeaf1EcxAdded;
    out[3] |= kLeaf1EdxAdded;
  }
  // CPUID writes the 32-bit registers, which zero-extends into the 64-bit ones.
  for (int i = 0; i < 4; ++i) {
    uint64_t v = out[i] & 0xffffffff;
    uc_reg_write(uc, regs[i], &v);
  }
  return 1;  // handled: Unicorn skips its own cpuid
}

}  // namespace ttd::rec
