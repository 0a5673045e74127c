// Base64 (RFC 4648, with padding) for readMemory's data field.
#pragma once
#include <cstdint>
#include <span>
#include <string>

namespace ttd::dap {

std::string base64_encode(std::span<const uint8_t> bytes);

}  // namespace ttd::dap
