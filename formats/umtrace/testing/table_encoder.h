// Encoders for the small tables of a UMTracer indexed trace (everything but
// the execution table, which the writer streams): each returns the file's
// bytes. Used by UmtraceWriter and by tests that build damaged tables.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "formats/umtrace/testing/umtrace_writer_types.h"

namespace ttd::fmt::umtrace {

std::vector<uint8_t> encode_context_map(const ContextMapSpec& map);

// ins.itable, built up one instruction at a time. Identical instructions
// get one id; identical decoded forms and disassembly strings are stored
// once in the extra area, as UMTIndex does.
class InstructionTableEncoder {
 public:
  explicit InstructionTableEncoder(uint32_t record_version) : record_version_(record_version) {}
  uint64_t add(const InstructionSpec& ins);
  const InstructionSpec& get(uint64_t id) const { return specs_[id]; }
  uint64_t count() const { return specs_.size(); }
  std::vector<uint8_t> encode() const;

 private:
  uint32_t record_version_;
  std::vector<InstructionSpec> specs_;
  std::map<std::vector<uint8_t>, uint64_t> by_content_;
};

// The decodedIns bytes of one instruction (fixed part and slots).
std::vector<uint8_t> encode_decoded(const DecodedInstructionSpec& d);

struct ThreadRow {
  ThreadSpec spec;
  int64_t first_eid = -1, last_eid = -1;
  uint64_t records = 0;
};

std::vector<uint8_t> encode_module_table(const std::vector<ModuleSpec>& modules);
std::vector<uint8_t> encode_thread_table(const std::vector<ThreadRow>& threads);
// Ranges of whole 4 KiB pages, inclusive (first, last byte).
std::vector<uint8_t> encode_address_space(const std::vector<std::pair<uint64_t, uint64_t>>& ranges);
// syscall.vtable and syscall.offsets.
std::pair<std::vector<uint8_t>, std::vector<uint8_t>> encode_syscall_tables(const std::vector<SyscallSpec>& calls,
                                                                           uint32_t unified_ids_version);
std::string encode_trace_xml(const std::vector<std::pair<std::string, std::string>>& leaves);

}  // namespace ttd::fmt::umtrace
