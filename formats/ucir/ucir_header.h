// The 74-byte UCIR file header: "UCIR", u32 version, arch[32], os[32],
// u8 code byte order, u8 data byte order. usercorn packs it with
// lunixbochs/struc, whose default order is big-endian, so the version
// reads 00 00 00 01; we also accept 01 00 00 00 and say which was found.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "state/arch.h"
#include "state/error.h"

namespace ttd::fmt::ucir {

constexpr size_t kHeaderSize = 74;
constexpr uint32_t kVersion = 1;

struct Header {
  uint32_t version = kVersion;
  bool version_big_endian = true;  // as usercorn writes it
  std::string arch;                // "x86_64", "arm64", ... (NULs trimmed)
  std::string os;                  // "linux", ...
  uint8_t code_order = 0;          // 0 little, 1 big
  uint8_t data_order = 0;
};

// Parses the header; errors name `path` and the offending byte offset.
Result<Header> parse_header(std::span<const uint8_t> bytes, const std::string& path);
std::array<uint8_t, kHeaderSize> encode_header(const Header& h);

// usercorn's arch strings (from its ELF / Mach-O loaders) to ours and back.
std::optional<ArchId> arch_from_usercorn(std::string_view name);
std::string usercorn_arch_name(ArchId arch);

}  // namespace ttd::fmt::ucir
