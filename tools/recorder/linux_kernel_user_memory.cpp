// The kernel's access to guest memory: reads for arguments, and writes
// that are results, each recorded as an effect of the current syscall
// (KernelEffect::MemWrite) so that replay never needs the host.
#include <cstring>

#include "tools/recorder/linux_abi_constants.h"
#include "tools/recorder/linux_kernel.h"

namespace ttd::rec {

bool LinuxKernel::copy_to_user(uint64_t addr, std::span<const uint8_t> bytes) {
  if (bytes.empty()) return true;
  return mem_.accessible(addr, bytes.size(), kProtWrite) && write_recorded(addr, bytes);
}

bool LinuxKernel::write_recorded(uint64_t addr, std::span<const uint8_t> bytes) {
  if (!mem_.write(addr, bytes)) return false;
  KernelEffect e;
  e.kind = KernelEffect::Kind::MemWrite;
  e.addr = addr;
  e.size = bytes.size();
  e.bytes.assign(bytes.begin(), bytes.end());
  effects_.push_back(std::move(e));
  return true;
}

bool LinuxKernel::copy_from_user(uint64_t addr, std::span<uint8_t> out) {
  if (out.empty()) return true;
  return mem_.accessible(addr, out.size(), kProtRead) && mem_.read(addr, out);
}

std::optional<std::string> LinuxKernel::read_c_string(uint64_t addr, size_t max) {
  std::string s;
  uint8_t c = 0;
  while (s.size() < max) {
    if (!copy_from_user(addr + s.size(), {&c, 1})) return std::nullopt;
    if (c == 0) return s;
    s.push_back(char(c));
  }
  return std::nullopt;
}

bool LinuxKernel::put_u32s(uint64_t addr, std::initializer_list<uint32_t> values) {
  std::vector<uint8_t> b;
  for (uint32_t v : values)
    for (int i = 0; i < 4; ++i) b.push_back(uint8_t(v >> (8 * i)));
  return copy_to_user(addr, b);
}

void LinuxKernel::record_raw_write(uint64_t addr, std::span<const uint8_t> bytes) {
  if (!bytes.empty()) write_recorded(addr, bytes);
}

bool LinuxKernel::put_u64s(uint64_t addr, std::initializer_list<uint64_t> values) {
  std::vector<uint8_t> b;
  for (uint64_t v : values)
    for (int i = 0; i < 8; ++i) b.push_back(uint8_t(v >> (8 * i)));
  return copy_to_user(addr, b);
}

}  // namespace ttd::rec
