#include "tools/ttd/value_format.h"

#include <vector>

namespace ttd::cli {

namespace {
const char* kHex = "0123456789abcdef";
}

std::optional<std::string> register_hex(const RegisterFile& regs, uint16_t reg) {
  if (!regs.valid(reg)) return std::nullopt;
  auto b = regs.bytes(reg);
  bool le = regs.arch().endian == Endian::Little;
  std::string digits;
  for (size_t i = 0; i < b.size(); ++i) {
    uint8_t x = le ? b[b.size() - 1 - i] : b[i];  // most significant first
    digits += kHex[x >> 4];
    digits += kHex[x & 15];
  }
  size_t nz = digits.find_first_not_of('0');
  return "0x" + (nz == std::string::npos ? std::string("0") : digits.substr(nz));
}

std::string memory_hex(const ProcessState* p, uint64_t addr, uint64_t len) {
  std::vector<uint8_t> bytes(len), valid(len, 0);
  if (p) p->memory.read(addr, bytes.data(), valid.data(), len);
  std::string s;
  s.reserve(len * 2);
  for (uint64_t i = 0; i < len; ++i) {
    if (!valid[i]) {
      s += "??";
    } else {
      s += kHex[bytes[i] >> 4];
      s += kHex[bytes[i] & 15];
    }
  }
  return s;
}

std::string bytes_hex(const uint8_t* p, size_t n) {
  std::string s;
  s.reserve(n * 2);
  for (size_t i = 0; i < n; ++i) {
    s += kHex[p[i] >> 4];
    s += kHex[p[i] & 15];
  }
  return s;
}

}  // namespace ttd::cli
