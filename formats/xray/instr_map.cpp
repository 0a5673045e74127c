#include "formats/xray/instr_map.h"

#include <cxxabi.h>
#include <elf.h>

#include <cstdlib>
#include <unordered_map>

#include "elf/elf_file.h"
#include "elf/elf_sections.h"
#include "state/byte_order.h"

namespace ttd::fmt::xray {

namespace {

std::optional<ArchId> arch_of(uint16_t machine, bool is64) {
  switch (machine) {
    case EM_X86_64:
      return ArchId::X86_64;
    case EM_386:
      return ArchId::I386;
    case EM_AARCH64:
      return ArchId::AArch64;
    case EM_ARM:
      return ArchId::Arm;
    case EM_MIPS:
      return is64 ? std::nullopt : std::optional<ArchId>(ArchId::Mips);
    case EM_PPC:
      return ArchId::Ppc32;
    default:
      return std::nullopt;
  }
}

std::string demangle(const std::string& name) {
  int status = 0;
  char* d = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
  if (status != 0 || !d) return name;
  std::string out(d);
  std::free(d);
  return out;
}

// Function symbols by address (ARM: without the Thumb bit), for naming the
// functions the sleds belong to.
std::unordered_map<uint64_t, std::string> function_names(const elf::ElfFile& file) {
  std::unordered_map<uint64_t, std::string> out;
  for (const elf::Symbol& s : elf::symbols(file)) {
    if (s.type != STT_FUNC || s.value == 0) continue;
    out.emplace(file.machine() == EM_ARM ? s.value & ~uint64_t(1) : s.value, s.name);
  }
  return out;
}

}  // namespace

Result<InstrMap> InstrMap::load(const std::string& path) {
  auto elf = elf::ElfFile::open(path, "instrumented binary");
  if (!elf) return elf.error();
  auto found = elf::find_section(*elf, "xray_instr_map");
  if (!found) return found.error();
  if (!elf->little_endian()) return make_error(path, "big-endian binaries are not supported for XRay maps");
  if (!*found) return make_error(path, "no xray_instr_map section (was it built with -fxray-instrument?)");
  const elf::Section& sec = **found;
  const bool is64 = elf->is64();
  const size_t entry = is64 ? 32 : 16, word = is64 ? 8 : 4;
  if (sec.bytes.size() % entry != 0)
    return make_error(path, "xray_instr_map holds " + std::to_string(sec.bytes.size()) +
                                " bytes, not a whole number of " + std::to_string(entry) + "-byte sled entries");
  InstrMap m;
  m.path_ = path;
  m.arch_ = arch_of(elf->machine(), is64);
  const std::unordered_map<uint64_t, uint64_t> relocations = elf::relocated_words(*elf, sec);
  const std::unordered_map<uint64_t, std::string> functions = function_names(*elf);
  // A zero word in a position-independent binary is filled in by a
  // relocation at load time; use the relocation's value then.
  auto word_at = [&](size_t off) -> uint64_t {
    const uint8_t* p = sec.bytes.data() + off;
    uint64_t v = is64 ? load_le64(p) : load_le32(p);
    if (v == 0) {
      auto it = relocations.find(sec.address + off);
      if (it != relocations.end()) return it->second;
    }
    return v;
  };
  uint64_t current = 0;
  for (size_t off = 0; off < sec.bytes.size(); off += entry) {
    SledEntry s;
    s.address = word_at(off);
    s.function = word_at(off + word);
    const uint8_t* tail = sec.bytes.data() + off + 2 * word;
    s.kind = tail[0];
    s.always_instrument = tail[1] != 0;
    s.version = tail[2];
    if (s.version >= 2) {
      // Version 2 sleds store both addresses relative to where they lie.
      s.address += sec.address + off;
      s.function += sec.address + off + word;
    }
    if (!is64) s.address &= 0xffffffffu, s.function &= 0xffffffffu;
    if (m.functions_.empty() || s.function != current) {
      current = s.function;
      Function f;
      f.address = s.function;
      auto sym = functions.find(s.function);
      if (sym != functions.end()) f.name = demangle(sym->second);
      m.functions_.push_back(std::move(f));
    }
    m.sleds_.push_back(s);
  }
  return m;
}

std::optional<uint64_t> InstrMap::function_address(uint32_t func_id) const {
  if (func_id == 0 || func_id > functions_.size()) return std::nullopt;
  return functions_[func_id - 1].address;
}

const std::string& InstrMap::function_name(uint32_t func_id) const {
  static const std::string none;
  if (func_id == 0 || func_id > functions_.size()) return none;
  return functions_[func_id - 1].name;
}

}  // namespace ttd::fmt::xray
