#include "formats/ucir/ucir_header.h"

#include <cstring>

#include "state/byte_order.h"

namespace ttd::fmt::ucir {

namespace {

std::string fixed_string(const uint8_t* p, size_t n) {
  size_t len = 0;
  while (len < n && p[len] != 0) ++len;
  return std::string(reinterpret_cast<const char*>(p), len);
}

void put_fixed_string(uint8_t* p, size_t n, const std::string& s) {
  std::memset(p, 0, n);
  std::memcpy(p, s.data(), std::min(n, s.size()));
}

}  // namespace

Result<Header> parse_header(std::span<const uint8_t> b, const std::string& path) {
  if (b.size() < 4 || std::memcmp(b.data(), "UCIR", 4) != 0)
    return make_error_at(path, 0, "bad magic: not a usercorn UCIR trace (expected \"UCIR\")");
  if (b.size() < kHeaderSize)
    return make_error_at(path, b.size(), "truncated UCIR header: " + std::to_string(b.size()) +
                                             " bytes, the header has " + std::to_string(kHeaderSize));
  Header h;
  const uint8_t* v = b.data() + 4;
  const uint32_t be = load_be32(v), le = load_le32(v);
  if (be == kVersion) {
    h.version_big_endian = true;
  } else if (le == kVersion) {
    h.version_big_endian = false;
  } else {
    return make_error_at(path, 4, "unknown UCIR version (bytes " + std::to_string(v[0]) + " " + std::to_string(v[1]) +
                                      " " + std::to_string(v[2]) + " " + std::to_string(v[3]) +
                                      "; only version 1 is known, in either byte order)");
  }
  h.version = kVersion;
  h.arch = fixed_string(b.data() + 8, 32);
  h.os = fixed_string(b.data() + 40, 32);
  h.code_order = b[72];
  h.data_order = b[73];
  if (h.code_order > 1) return make_error_at(path, 72, "bad code byte order " + std::to_string(h.code_order));
  if (h.data_order > 1) return make_error_at(path, 73, "bad data byte order " + std::to_string(h.data_order));
  return h;
}

std::array<uint8_t, kHeaderSize> encode_header(const Header& h) {
  std::array<uint8_t, kHeaderSize> out{};
  std::memcpy(out.data(), "UCIR", 4);
  const uint32_t v = h.version;
  if (h.version_big_endian)
    store_be32(out.data() + 4, v);
  else
    store_le32(out.data() + 4, v);
  put_fixed_string(out.data() + 8, 32, h.arch);
  put_fixed_string(out.data() + 40, 32, h.os);
  out[72] = h.code_order;
  out[73] = h.data_order;
  return out;
}

std::optional<ArchId> arch_from_usercorn(std::string_view name) {
  // usercorn's loaders say x86_64, x86, arm, arm64, mips, ppc (ppc64,
  // sparc and m68k exist there but have no architecture table here).
  if (name == "x86_64") return ArchId::X86_64;
  if (name == "x86") return ArchId::I386;
  if (name == "arm64") return ArchId::AArch64;
  if (name == "arm") return ArchId::Arm;
  if (name == "mips") return ArchId::Mips;
  if (name == "ppc") return ArchId::Ppc32;
  return arch_from_name(name);
}

std::string usercorn_arch_name(ArchId arch) {
  switch (arch) {
    case ArchId::X86_64: return "x86_64";
    case ArchId::I386: return "x86";
    case ArchId::AArch64: return "arm64";
    case ArchId::Arm: return "arm";
    case ArchId::Mips: return "mips";
    case ArchId::Ppc32: return "ppc";
  }
  return "unknown";
}

}  // namespace ttd::fmt::ucir
