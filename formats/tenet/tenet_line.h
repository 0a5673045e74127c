// One line of a Tenet trace taken apart: `name=value` entries separated by
// commas, where a name is a register (any case, any order) or one of the
// memory access keywords mr / mw / mrw with a value `ADDR:HEXBYTES`.
// Parsing validates everything before anything is emitted, so a bad line
// never leaves half its effects in the step stream.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "formats/tenet/register_lookup.h"
#include "state/arch.h"
#include "state/error.h"

namespace ttd::fmt::tenet {

enum class AccessKind : uint8_t { Read, Write, ReadWrite };

struct RegisterValue {
  uint16_t index = 0;   // into ArchDesc::regs
  uint32_t offset = 0;  // into ParsedLine::reg_bytes
  uint32_t size = 0;    // the register's size in bytes
};

struct MemoryAccess {
  AccessKind kind = AccessKind::Read;
  uint64_t addr = 0;
  uint32_t offset = 0;  // into ParsedLine::mem_bytes
  uint32_t size = 0;
};

struct ParsedLine {
  std::vector<RegisterValue> regs;  // without the instruction pointer
  std::vector<uint8_t> reg_bytes;   // values in target byte order
  std::vector<MemoryAccess> mem;
  std::vector<uint8_t> mem_bytes;
  bool has_ip = false;
  uint64_t ip = 0;
  void clear() {
    regs.clear();
    reg_bytes.clear();
    mem.clear();
    mem_bytes.clear();
    has_ip = false;
    ip = 0;
  }
};

// True for lines with nothing but blanks (Tenet would choke on them; we skip
// them without making a step).
bool is_blank_line(std::string_view line);

// Appends the lowercase names of the line's register entries (for arch
// detection); false with `error` set if the line is not NAME=VALUE entries.
bool scan_register_names(std::string_view line, std::vector<std::string>& names, std::string& error);

class LineParser {
 public:
  explicit LineParser(const ArchDesc& arch) : arch_(arch), lookup_(arch) {}
  // Parses line into out. On failure returns false and sets error to a
  // message without location (the reader adds file and line).
  bool parse(std::string_view line, ParsedLine& out, std::string& error);
  const ArchDesc& arch() const { return arch_; }

 private:
  bool parse_register(std::string_view name, std::string_view value, ParsedLine& out, std::string& error);
  bool parse_memory(AccessKind kind, std::string_view name, std::string_view value, ParsedLine& out,
                    std::string& error);

  const ArchDesc& arch_;
  RegisterLookup lookup_;
};

}  // namespace ttd::fmt::tenet
