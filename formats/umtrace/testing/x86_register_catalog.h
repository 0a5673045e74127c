// The writer's x86 register enum and context dump layout: XED's register
// names (RAX, EAX, AX, AL, AH, R8D, RFLAGS, ST0, MMX0, X87CONTROL, XMM0,
// FSBASE, STACKPUSH...) with ids of our own choosing (the reader never
// relies on ids, only on the names the context map gives them), the
// common-name groups and largest enclosing registers of the specification
// (section 11.1), and one context dump layout for 32- and 64-bit code.
// Producers use it to build the context map, context dumps and local
// context slots; each dump register also names the gdb register that holds
// it, so a producer can fill dumps from ttd::ArchDesc (and its Unicorn ids).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "formats/umtrace/testing/umtrace_writer_types.h"

namespace ttd::fmt::umtrace {

class X86RegisterCatalog {
 public:
  struct Entry {
    std::string name;     // XED spelling
    uint16_t family = 0;  // common-name group head (the common name)
    uint8_t size = 0;     // bytes
    uint8_t offset = 0;   // byte offset inside the family's largest register
    bool in64 = false, in32 = false;
    bool pseudo = false;  // STACKPUSH / STACKPOP / INVALID: never in a dump
  };
  // A register a dump of one mode stores whole (the largest of its family).
  struct DumpRegister {
    uint16_t id = 0;
    uint16_t offset = 0;
    uint8_t size = 0;
    std::string gdb_name;  // the ttd::ArchDesc register holding it ("" if gdb has none)
  };

  static const X86RegisterCatalog& instance();

  const ContextMapSpec& context_map() const { return map_; }
  uint16_t dump_size() const { return map_.dump_size; }
  size_t size() const { return entries_.size(); }
  const Entry& entry(uint16_t id) const { return entries_[id]; }
  // By XED spelling or Capstone's ("st(0)", "mm0", "fpsw", "rflags"), any case.
  std::optional<uint16_t> find(std::string_view name, bool mode64) const;
  // The register of the family holding id that a dump of this mode stores.
  uint16_t largest(uint16_t id, bool mode64) const { return mode64 ? largest64_[id] : largest32_[id]; }
  // Dump offset of id in this mode (0xffff if not in that mode's dump).
  uint16_t dump_offset(uint16_t id, bool mode64) const {
    return mode64 ? map_.regs[id].offset64 : map_.regs[id].offset32;
  }
  bool present(uint16_t id, bool mode64) const { return mode64 ? entries_[id].in64 : entries_[id].in32; }
  const std::vector<DumpRegister>& dump_registers(bool mode64) const { return mode64 ? dump64_ : dump32_; }
  // The smallest register of id's family in this mode covering bytes
  // [lo, hi) of the family's largest register.
  std::optional<uint16_t> covering(uint16_t family, uint32_t lo, uint32_t hi, bool mode64) const;
  // rax..r15 and their pieces (where 32-bit writes in 64-bit code clear the upper half).
  bool is_general_purpose(uint16_t id) const;

 private:
  X86RegisterCatalog();
  uint16_t add(std::string name, uint16_t family, uint8_t size, uint8_t offset, bool in64, bool in32,
               bool pseudo = false);

  std::vector<Entry> entries_;
  std::vector<uint16_t> largest64_, largest32_;
  std::vector<DumpRegister> dump64_, dump32_;
  ContextMapSpec map_;
};

}  // namespace ttd::fmt::umtrace
