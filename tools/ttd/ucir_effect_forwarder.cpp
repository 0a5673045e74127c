#include "tools/ttd/ucir_effect_forwarder.h"
#include "state/target_value.h"

#include <algorithm>

namespace ttd::cli {

std::vector<uint8_t> register_value_le(const ArchDesc& arch, std::span<const uint8_t> target_order) {
  std::vector<uint8_t> v(target_order.begin(), target_order.end());
  if (arch.endian == Endian::Big) std::reverse(v.begin(), v.end());
  return v;
}

uint64_t register_u64(const ArchDesc& arch, std::span<const uint8_t> v) {
  return target_value_u64(arch.endian, v.data(), v.size());
}

UcirEffectForwarder::UcirEffectForwarder(fmt::UcirWriter& w, const ArchDesc& arch) : w_(w), arch_(arch), numbers_(arch) {}

void UcirEffectForwarder::start(uint32_t tidx) {
  step_tidx_ = tidx, ended = other_ended = false;
  born.clear();
}

UcirEffectForwarder::ThreadRegisters& UcirEffectForwarder::regs_of(uint32_t tidx) {
  auto it = regs_.find(tidx);
  if (it == regs_.end()) it = regs_.emplace(tidx, ThreadRegisters(arch_.regs.size())).first;
  return it->second;
}

UcirEffectForwarder::NewThread& UcirEffectForwarder::newborn(uint32_t tidx) {
  for (auto& n : born)
    if (n.tidx == tidx) return n;
  born.push_back({tidx, false, {}});
  return born.back();
}

void UcirEffectForwarder::write_reg(uint16_t r, std::span<const uint8_t> v) {
  if (r == arch_.pc_index) return;  // UCIR's pc lives in OP_JMP / OP_STEP
  if (!numbers_.number_of(r)) {
    if (!unencodable) unencodable = r;
    return;
  }
  if (arch_.endian == Endian::Little)
    w_.reg(r, v);
  else
    w_.reg(r, register_value_le(arch_, v));
}

void UcirEffectForwarder::reg(uint32_t tidx, uint16_t r, const uint8_t* v, uint32_t len) {
  if (tidx == step_tidx_)
    write_reg(r, {v, len});
  else
    newborn(tidx).regs.emplace_back(r, std::vector<uint8_t>(v, v + len));
  auto& rf = regs_of(tidx);
  if (r < rf.size()) rf[r] = register_u64(arch_, {v, len});
}

void UcirEffectForwarder::reg_unknown(uint32_t tidx, uint16_t r) {
  ++unknowns;
  auto& rf = regs_of(tidx);
  if (r < rf.size()) rf[r].reset();
}

void UcirEffectForwarder::mem_read(uint64_t, uint64_t addr, uint64_t size, const uint8_t*) {
  for (uint64_t done = 0; done < size;) {  // UCIR's read size is a u32
    const uint32_t n = uint32_t(std::min<uint64_t>(size - done, 1u << 30));
    w_.mem_read(addr + done, n);
    done += n;
  }
}

}  // namespace ttd::cli
