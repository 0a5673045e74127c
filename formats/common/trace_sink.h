// The common step stream every format reader produces. A reader walks its
// file once, in order, and calls a TraceSink: first begin(), then effects
// that set up the initial state, then for each step: step() followed by the
// effects of that step. The consumer (the engine's indexer, a printer, a
// verifier) decides what to do with them; readers know nothing of it.
//
// Position model: steps are numbered from 0 (EID) in the order step() is
// called. The state at EID n is the state before step n runs; the pc of
// step n is its address (the consumer sets the thread's pc register from
// StepInfo::pc, so readers need not emit pc writes).
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "state/arch.h"

namespace ttd::fmt {

enum class StepKind : uint8_t {
  Instruction = 0,
  Syscall = 1,        // an instruction that entered the kernel; carries the kernel's effects
  ThreadBegin = 2,
  ThreadEnd = 3,
  ContextChange = 4,
  Interrupt = 5,
  FunctionEnter = 6,  // XRay
  FunctionExit = 7,
  FunctionTailExit = 8,
  CustomEvent = 9,
  TypedEvent = 10,
  Marker = 11,        // any other format-specific event
};
std::string_view step_kind_name(StepKind k);

// What a format can reconstruct, for `ttd info` and for clients.
struct Capabilities {
  bool registers = false;       // full register values
  bool memory_values = false;   // memory contents
  bool memory_accesses = false; // addresses read/written (maybe without values)
  bool code_bytes = false;      // instruction bytes at pc
  std::string note;             // free text: what is missing and why
};

struct TraceInfo {
  std::string format;     // "ucir", "xray-fdr", "rvnblock", "tenet", ...
  ArchId arch = ArchId::X86_64;
  std::string os;         // "linux", ...
  std::string exec_path;  // program that was traced, if the trace names it
  Capabilities caps;
  std::vector<std::pair<std::string, std::string>> properties;  // format details for `ttd info`
};

struct StepInfo {
  uint64_t tid = 0;
  uint64_t pid = 0;
  uint64_t pc = 0;
  uint32_t size = 0;  // instruction size in bytes, 0 for events
  StepKind kind = StepKind::Instruction;
};

// A per-step attribute shown by `ttd steps` (XRay function id, syscall
// number, ...). Values are integers, signed integers, strings, or integer lists.
using AttrValue = std::variant<uint64_t, int64_t, std::string, std::vector<uint64_t>>;

class TraceSink {
 public:
  virtual ~TraceSink() = default;

  virtual void begin(const TraceInfo& info) = 0;
  // Starts step number N (N = number of previous step() calls).
  virtual void step(const StepInfo& s) = 0;
  // Attribute of the current step (ignored before the first step).
  virtual void attr(std::string_view key, const AttrValue& v) {}

  // The fast path for an unsigned attribute a reader sends on (nearly)
  // every step: it names the key once, then passes the handle. By default
  // attr_u64 forwards to attr(); a sink overrides both or neither.
  using AttrKey = uint32_t;
  virtual AttrKey attr_key(std::string_view key) {
    attr_key_names_.emplace_back(key);
    return AttrKey(attr_key_names_.size() - 1);
  }
  virtual void attr_u64(AttrKey key, uint64_t v) { attr(attr_key_names_[key], AttrValue(v)); }
  // Several at once, in order: one call per step for a reader's fixed set.
  virtual void attr_u64s(const AttrKey* keys, const uint64_t* values, size_t n) {
    for (size_t i = 0; i < n; ++i) attr_u64(keys[i], values[i]);
  }

  // Effects. `reg` is an index into arch_desc(info.arch).regs; the value is
  // in target byte order, at most the register's size.
  virtual void reg(uint64_t tid, uint16_t reg, std::span<const uint8_t> value) = 0;
  // The same for a register of `bytes` (1 to 8) bytes on a little-endian
  // target, given as the integer its bytes hold (bits above them are
  // ignored). Readers whose trace holds integers (UCIR's OP_REG) call this
  // instead, and a sink that wants the integer (the index builder) skips
  // the bytes' round trip. By default: reg() with the low bytes.
  virtual void reg_value(uint64_t tid, uint16_t reg, uint64_t value, uint32_t bytes) {
    uint8_t le[8];
    for (uint32_t i = 0; i < 8; ++i) le[i] = uint8_t(value >> (8 * i));
    this->reg(tid, reg, {le, bytes < 8 ? bytes : 8});
  }
  virtual void reg_unknown(uint64_t tid, uint16_t reg) {}
  virtual void mem_write(uint64_t pid, uint64_t addr, std::span<const uint8_t> bytes) = 0;
  // A read of `size` bytes; `bytes` is empty when the trace does not say
  // what was read, otherwise it holds the value read.
  virtual void mem_read(uint64_t pid, uint64_t addr, uint32_t size, std::span<const uint8_t> bytes) {}
  virtual void mem_unknown(uint64_t pid, uint64_t addr, uint64_t size) {}
  virtual void mem_map(uint64_t pid, uint64_t addr, uint64_t size, uint8_t prot, std::string_view name) {}
  virtual void mem_unmap(uint64_t pid, uint64_t addr, uint64_t size) {}
  virtual void mem_protect(uint64_t pid, uint64_t addr, uint64_t size, uint8_t prot) {}
  virtual void thread_begin(uint64_t tid, uint64_t pid) {}
  virtual void thread_end(uint64_t tid) {}

  // Called before end() by readers that learn some facts of a trace only
  // by reading all of it (counts among info.properties): replaces what
  // begin() was told. Everything but the properties stays as it was.
  virtual void revise(const TraceInfo& info) {}
  // Called once after the last step.
  virtual void end() {}

 private:
  std::vector<std::string> attr_key_names_;  // by AttrKey, for the default attr_u64
};

}  // namespace ttd::fmt
