// Backward dataflow: where did the value of a register or a memory range
// at an EID come from? The answer is a DAG. Each node is a location (a
// register, a memory range, or a constant) holding a value at a position;
// its origin is the step that last wrote it there and, below it, that
// instruction's inputs (instruction_inputs.h) at that step, each followed
// the same way. Nodes end in leaves:
//   constant  an immediate, the zero register, the pc, a return address,
//             or a zeroing idiom (xor eax, eax)
//   syscall   the kernel wrote it (the syscall is named, with its arguments)
//   initial   no step before the position wrote it: the trace's initial
//             state (its first keyframe)
//   unknown   knowledge stops here, and the note says why (no code bytes,
//             an unsupported architecture, a write of unknown bytes, an
//             event step, a memory read the format does not record ...)
//   limit     the depth, breadth or node limit stopped the walk
//   repeat    the same location with the same writer was expanded at
//             node `same_as` (the DAG's shared nodes)
// A memory range written piecewise (bytes by several steps) is a `split`
// node whose inputs are the pieces.
//
// Each "last write" is answered from the index (register_history,
// memory_history). A register write that leaves the value unchanged is not
// in the index of formats that record changes only (UCIR), so the last
// recorded change is checked against the instructions after it that write
// the register (chunks whose pcs write it are the only ones decoded).
// Values come from the machine state at the step (a cursor seek).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/query/chunk_walk.h"
#include "engine/query/instruction_inputs.h"
#include "engine/query/query_types.h"
#include "engine/trace.h"

namespace ttd::query {

// Limits (docs/security.md): what a client may ask for, and the defaults.
constexpr uint32_t kDefaultOriginDepth = 8;
constexpr uint32_t kDefaultOriginBreadth = 8;
constexpr uint32_t kDefaultOriginNodes = 400;
constexpr uint32_t kMaxOriginDepth = 256;
constexpr uint32_t kMaxOriginBreadth = 64;
constexpr uint32_t kMaxOriginNodes = 100000;

struct OriginLocation {
  enum class Kind : uint8_t { Register, Memory, Constant };
  Kind kind = Kind::Register;
  uint16_t reg = 0;     // Register: index in the arch's table
  AddressRange range;   // Memory
  bool operator==(const OriginLocation& o) const {
    return kind == o.kind && reg == o.reg && range.addr == o.range.addr && range.len == o.range.len;
  }
};

enum class OriginKind : uint8_t { Write, Split, Constant, Syscall, Initial, Unknown, Limit, Repeat };
const char* origin_kind_name(OriginKind k);  // "write", "split", "constant", "syscall", "initial", "unknown", "limit", "repeat"

struct OriginStep {
  uint64_t eid = 0, pc = 0, tid = 0;
  std::string insn;  // disassembly ("" when the code bytes are unknown)
};

struct OriginSyscall {
  uint64_t number = 0;
  std::string name;  // "read"; "" when the table does not know the number
  std::vector<uint64_t> args;
  std::optional<uint64_t> ret;
};

struct OriginNode {
  uint32_t id = 0;
  uint32_t depth = 0;  // write steps followed to reach this node (root: 0)
  OriginLocation loc;
  std::optional<InputRole> role;  // how the parent's step read it (root: none)
  uint64_t at = 0;                // the position at which loc holds value
  uint64_t tid = 0;               // the thread whose register (or whose step's memory) this is
  std::optional<std::vector<uint8_t>> value;  // target byte order; none when unknown
  OriginKind kind = OriginKind::Unknown;
  std::optional<OriginStep> step;        // write, syscall (and unknown when the step is known)
  std::string constant;                  // Constant: what it is ("immediate", "return address" ...)
  std::optional<OriginSyscall> syscall;  // Syscall
  std::string note;                      // unknown, limit: why; others: extra facts
  std::optional<uint32_t> same_as;       // Repeat
  std::vector<uint32_t> inputs;          // node ids
};

struct OriginGraph {
  std::vector<OriginNode> nodes;  // nodes[0] is the root
  uint32_t depth = 0, breadth = 0, max_nodes = 0;
  bool truncated = false;         // a limit cut some path short
};

struct OriginQuery {
  OriginLocation loc;
  uint64_t at = 0;
  uint32_t depth = kDefaultOriginDepth;      // write steps to follow along any path
  uint32_t breadth = kDefaultOriginBreadth;  // inputs followed per step
  uint32_t max_nodes = kDefaultOriginNodes;
  CancelCheck cancel;
};

// Checks the query's limits and location; errors name the argument
// ("depth", "breadth", "nodes", "at", "reg", "mem").
Status check_origin_query(const Trace& t, const OriginQuery& q);

Result<OriginGraph> trace_origin(const Trace& t, const OriginQuery& q);

// A location from the front ends' arguments: exactly one of a register
// name and "ADDR:LEN".
Result<OriginLocation> parse_origin_location(const Trace& t, const std::string& reg, const std::string& mem);

// "rax", "mem 0x408164:4", "constant".
std::string location_text(const Trace& t, const OriginLocation& l);

}  // namespace ttd::query
