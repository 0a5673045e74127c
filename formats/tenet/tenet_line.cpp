#include "formats/tenet/tenet_line.h"
#include "state/byte_order.h"

#include <algorithm>
#include <cstring>

#include "formats/tenet/ascii_lower.h"
#include "formats/tenet/hex_text.h"

namespace ttd::fmt::tenet {

namespace {

inline bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

// For messages: the entry as written, cut short if it is huge.
std::string quote(std::string_view s) {
  constexpr size_t kMax = 60;
  if (s.size() > kMax) return "'" + std::string(s.substr(0, kMax)) + "...'";
  return "'" + std::string(s) + "'";
}

// mr / mw / mrw in any case; returns false for register names.
bool memory_keyword(std::string_view name, AccessKind& kind) {
  if (name.size() < 2 || name.size() > 3 || ascii_lower(name[0]) != 'm') return false;
  char a = ascii_lower(name[1]);
  if (name.size() == 2) {
    if (a == 'r') kind = AccessKind::Read;
    else if (a == 'w') kind = AccessKind::Write;
    else return false;
    return true;
  }
  if (a == 'r' && ascii_lower(name[2]) == 'w') {
    kind = AccessKind::ReadWrite;
    return true;
  }
  return false;
}

// Walks the comma-separated entries of a line, trimmed, skipping empty ones
// (a trailing comma). Calls f(name, value, entry) and stops when it fails.
template <class F>
bool for_each_entry(std::string_view line, std::string& error, F&& f) {
  size_t pos = 0;
  while (pos <= line.size()) {
    size_t comma = line.find(',', pos);
    if (comma == std::string_view::npos) comma = line.size();
    std::string_view entry = trim(line.substr(pos, comma - pos));
    pos = comma + 1;
    if (entry.empty()) continue;
    size_t eq = entry.find('=');
    if (eq == std::string_view::npos) {
      error = "entry " + quote(entry) + " is not NAME=VALUE";
      return false;
    }
    std::string_view name = trim(entry.substr(0, eq));
    std::string_view value = trim(entry.substr(eq + 1));
    if (name.empty()) {
      error = "entry " + quote(entry) + " has no name before '='";
      return false;
    }
    if (!f(name, value, entry)) return false;
  }
  return true;
}

}  // namespace

bool is_blank_line(std::string_view line) { return trim(line).empty(); }

bool scan_register_names(std::string_view line, std::vector<std::string>& names, std::string& error) {
  return for_each_entry(line, error, [&](std::string_view name, std::string_view, std::string_view) {
    AccessKind kind;
    if (memory_keyword(name, kind)) return true;
    std::string n(name);
    for (char& c : n) c = ascii_lower(c);
    names.push_back(std::move(n));
    return true;
  });
}

bool LineParser::parse(std::string_view line, ParsedLine& out, std::string& error) {
  out.clear();
  return for_each_entry(line, error, [&](std::string_view name, std::string_view value, std::string_view) {
    AccessKind kind;
    if (memory_keyword(name, kind)) return parse_memory(kind, name, value, out, error);
    return parse_register(name, value, out, error);
  });
}

bool LineParser::parse_register(std::string_view name, std::string_view value, ParsedLine& out,
                                std::string& error) {
  auto idx = lookup_.find(name);
  if (!idx) {
    error = "unknown register " + quote(name) + " for " + arch_.name;
    return false;
  }
  const RegisterDesc& reg = arch_.regs[*idx];
  const uint32_t size = reg.bytes();
  if (*idx == arch_.pc_index) {
    uint64_t ip = 0;
    HexStatus st = parse_hex_u64(value, ip);
    if (st == HexStatus::Ok && size < 8 && (ip >> (8 * size)) != 0) st = HexStatus::TooLarge;
    if (st != HexStatus::Ok) {
      error = std::string(hex_status_text(st)) + " for " + reg.name + ": " + quote(value);
      return false;
    }
    out.has_ip = true;
    out.ip = ip;
    return true;
  }
  uint32_t offset = uint32_t(out.reg_bytes.size());
  out.reg_bytes.resize(offset + size);
  std::span<uint8_t> dst(out.reg_bytes.data() + offset, size);
  HexStatus st;
  if (size <= 8) {
    // The common case (general-purpose registers): one integer parse.
    uint64_t v = 0;
    st = parse_hex_u64(value, v);
    if (st == HexStatus::Ok && size < 8 && (v >> (8 * size)) != 0) st = HexStatus::TooLarge;
    store_le(dst.data(), v, size);
  } else {
    st = parse_hex_number_le(value, dst);
  }
  if (st != HexStatus::Ok) {
    out.reg_bytes.resize(offset);
    error = std::string(hex_status_text(st)) + " for " + std::to_string(reg.bits) + "-bit register " +
            reg.name + ": " + quote(value);
    return false;
  }
  if (arch_.endian == Endian::Big) std::reverse(dst.begin(), dst.end());
  // The same register twice on a line: the later value wins, as in Tenet.
  for (RegisterValue& r : out.regs)
    if (r.index == *idx) {
      std::memcpy(out.reg_bytes.data() + r.offset, dst.data(), size);
      out.reg_bytes.resize(offset);
      return true;
    }
  out.regs.push_back(RegisterValue{*idx, offset, size});
  return true;
}

bool LineParser::parse_memory(AccessKind kind, std::string_view name, std::string_view value, ParsedLine& out,
                              std::string& error) {
  size_t colon = value.find(':');
  if (colon == std::string_view::npos) {
    error = "memory entry " + quote(std::string(name) + "=" + std::string(value)) + " is not ADDRESS:HEXBYTES";
    return false;
  }
  std::string_view addr_text = trim(value.substr(0, colon));
  std::string_view data_text = trim(value.substr(colon + 1));
  uint64_t addr = 0;
  HexStatus st = parse_hex_u64(addr_text, addr);
  if (st != HexStatus::Ok) {
    error = std::string(hex_status_text(st)) + " for the address of " + std::string(name) + ": " + quote(addr_text);
    return false;
  }
  uint32_t offset = uint32_t(out.mem_bytes.size());
  st = parse_hex_bytes(data_text, out.mem_bytes);
  if (st != HexStatus::Ok) {
    error = std::string(hex_status_text(st)) + " in the bytes of " + std::string(name) + ": " + quote(data_text);
    return false;
  }
  uint32_t size = uint32_t(out.mem_bytes.size() - offset);
  if (size == 0) return true;  // an access of no bytes tells nothing
  if (addr + (size - 1) < addr) {
    error = std::string(name) + " at " + quote(addr_text) + " runs past the end of the address space";
    return false;
  }
  out.mem.push_back(MemoryAccess{kind, addr, offset, size});
  return true;
}

}  // namespace ttd::fmt::tenet
