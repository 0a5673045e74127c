// What the writer is told, mirroring the on-disk structures of the UMTracer
// indexed trace one for one (see umtrace_layout.h). Register ids are
// whatever enum the producer uses (ours: X86RegisterCatalog); the context
// map names them.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "formats/umtrace/umtrace_layout.h"

namespace ttd::fmt::umtrace {

struct MapRegisterSpec {  // one context map entry (its index is the register id)
  std::string name;       // XED spelling, e.g. "RAX"; at most 15 characters
  int16_t common = -1;    // common register name (id)
  uint16_t offset32 = 0xffff, offset64 = 0xffff;  // in the dump; 0xffff: not in that mode's context
  uint8_t size32 = 0, size64 = 0;
  int16_t largest32 = -1, largest64 = -1;  // effective largest enclosing register (id)
};

struct ContextMapSpec {
  uint16_t dump_size = 0;
  std::vector<MapRegisterSpec> regs;  // at most 512
};

struct LcSlotSpec {
  uint16_t reg = 0;  // register id or kRegMem0 / kRegMem1 / kRegAgen
  uint16_t common = 0;
  uint16_t value_size = 0;
  uint16_t offset = 0;     // in the local context (memory: the address, then the value)
  uint8_t addr_width = 0;  // memory slots: significant address bytes
};

struct ExpOperandSpec {
  uint16_t reg = 0;
  uint16_t size = 0;
  uint8_t flags = 0;  // 1 read, 2 written
  uint8_t before_slot = kSlotNA, after_slot = kSlotNA;
  uint8_t before_offset = 0, after_offset = 0;
};

struct DecodedInstructionSpec {
  uint16_t category = 0, mnemonic = 0, form = 0;
  uint8_t flags = 0;
  std::vector<ExpOperandSpec> operands;  // at most 4
  uint8_t eff_oper_size = 4, eff_addr_size = 8;
  uint16_t lc_size = 0;
  uint8_t first_out_slot = 0, first_after_slot = 0;
  uint8_t mem0_seg = kSlotNA, mem0_base = kSlotNA, mem0_scale = 0, mem0_index = kSlotNA, mem1_base = kSlotNA;
  uint64_t const_slot[2] = {0, 0};
  std::vector<LcSlotSpec> slots;  // before-input, before-output, after groups in that order
};

struct InstructionSpec {
  uint8_t type = 0;  // insRec.Type
  bool cs64 = true;
  int32_t module_id = -1;
  uint64_t address = 0;
  std::vector<uint8_t> code;  // at most 15 bytes
  std::string disasm;
  DecodedInstructionSpec decoded;
};

struct ContextMemSpec {
  uint64_t address = 0;
  std::vector<uint8_t> bytes;
};

struct ContextSpec {
  std::vector<uint8_t> registers;  // dump_size bytes, laid out by the context map
  std::vector<ContextMemSpec> memory;
};

struct SyscallSpec {
  uint16_t raw_id = 0, uniform_id = 0;
  uint8_t convention = 0;
  bool completed = false;
  int64_t begin_eid = -1, end_eid = -1;
  uint64_t before_sp = 0, result = 0;
  std::vector<uint64_t> args;
};

struct ModuleSpec {
  int64_t load_eid = 0, unload_eid = -1;
  uint64_t start = 0, end = 0;  // end inclusive
  std::string win_name, device_name;
};

struct ThreadSpec {
  uint32_t win_tid = 0;
  uint64_t tib = 0;
};

struct WriterOptions {
  uint32_t exec_version = 1;        // 0 or 1 (meaning of the unreliable flags)
  uint32_t ins_record_version = 1;  // 0 or 1 (lcSlot field 2's meaning)
  uint32_t unified_ids_version = 1;
  bool write_prev_next = true;
  // trace.xml leaves below <Data><TraceMetaData>, e.g. {"App/ProcessID", "4242"}.
  std::vector<std::pair<std::string, std::string>> xml;
};

}  // namespace ttd::fmt::umtrace
