// Plain value types the debug-info queries answer with. They carry no libdw
// handles, so callers never see libdw and may keep them as long as they like.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ttd::dbg {

// A function from the ELF symbol tables.
struct FunctionSym {
  std::string name;
  uint64_t addr = 0;
  uint64_t size = 0;  // 0 when the symbol table does not say
};

// One source position as the line table maps a pc.
struct LineInfo {
  std::string file;  // absolute path as recorded in DWARF
  int line = 0;      // 1-based
  int column = 0;    // 1-based, 0 = unknown
  uint64_t row_start = 0, row_end = 0;  // address range of the line-table row holding pc
};

// A place where a source-line breakpoint goes.
struct LineLocation {
  uint64_t addr = 0;
  std::string file;
  int line = 0;  // the line actually used (the requested one or the next with code)
};

// One DWARF expression operation (a copy of libdw's Dwarf_Op).
struct DwarfOp {
  uint8_t atom = 0;
  uint64_t number = 0, number2 = 0;
  uint64_t offset = 0;
};
using DwarfExpr = std::vector<DwarfOp>;

// A C type as far as displaying values needs it. Typedefs and cv-qualifiers
// are resolved away (their name is kept in `name`).
struct TypeDesc {
  enum class Kind : uint8_t { Void, Signed, Unsigned, Bool, Float, Pointer, Struct, Union, Array, Enum, Function, Unknown };
  struct Member {
    std::string name;
    uint64_t offset = 0;  // bytes from the start of the aggregate
    std::shared_ptr<const TypeDesc> type;
    uint32_t bit_size = 0, bit_offset = 0;  // bit fields; 0 = not a bit field
  };
  Kind kind = Kind::Unknown;
  std::string name;    // C spelling: "int", "struct node *", "char [12]"
  uint64_t size = 0;   // bytes
  bool is_char = false;  // a (signed/unsigned) char: shown as characters
  std::shared_ptr<const TypeDesc> target;  // pointee / element / enum underlying
  uint64_t count = 0;  // array elements (0 when unknown)
  std::vector<Member> members;
  std::vector<std::pair<int64_t, std::string>> enumerators;
};
// Valid while the DebugInfo that made it lives: a recursive type's
// reference back to itself does not own it (type_desc.h).
using TypeRef = std::shared_ptr<const TypeDesc>;

// A variable visible at a pc.
struct VariableDesc {
  std::string name;
  TypeRef type;
  DwarfExpr location;    // empty: optimized out / no location
  bool has_location_list_gap = false;  // the location list does not cover pc
  DwarfExpr frame_base;  // of the enclosing function (for DW_OP_fbreg)
  bool is_parameter = false;
  bool is_global = false;  // CU-level (static or external)
  int decl_line = 0;
  std::optional<std::vector<uint8_t>> const_value;  // DW_AT_const_value
};

// Reads a register by DWARF register number (nullopt: unknown).
using DwarfRegisterReader = std::function<std::optional<uint64_t>(int dwarf_regno)>;
// Reads len bytes of target memory into dst; false if any byte is unknown.
using MemoryReader = std::function<bool(uint64_t addr, uint8_t* dst, size_t len)>;

// One frame of a call stack.
struct UnwoundFrame {
  uint64_t pc = 0;   // the frame's pc (for callers: the return address)
  uint64_t cfa = 0;  // canonical frame address (0 when unknown)
  bool cfa_known = false;
  // DWARF register number -> value in this frame; registers the unwinder
  // could not recover are absent.
  std::map<int, uint64_t> regs;
  enum class Method : uint8_t { Initial, Cfi, FramePointer } method = Method::Initial;
};

}  // namespace ttd::dbg
