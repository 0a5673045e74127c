// How values are written in ttd's output: registers as 0x-hex numbers (or
// null when unknown), memory as hex bytes with ?? for unknown bytes.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "state/machine_state.h"

namespace ttd::cli {

// "0x1f" (the register's value as a number), or nullopt when unknown.
std::optional<std::string> register_hex(const RegisterFile& regs, uint16_t reg);
// Two hex digits per byte; unknown bytes as "??".
std::string memory_hex(const ProcessState* p, uint64_t addr, uint64_t len);
std::string bytes_hex(const uint8_t* p, size_t n);

}  // namespace ttd::cli
