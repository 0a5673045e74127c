// The narrow interface between the Debug Adapter Protocol front end and
// whatever it debugs. The protocol layer knows no trace format, no engine
// and no DWARF: it asks a Debuggee for threads, frames, variables, memory
// and disassembly at the current position, and asks it to move (forwards
// or backwards, by line or by instruction) under a set of breakpoints and
// watchpoints it has resolved through the Debuggee.
//
// Positions are EIDs (0 .. end_position()). Variable containers are named
// by opaque keys the Debuggee hands out; the protocol layer maps them to
// DAP's integer references and forgets them when the position changes.
//
// Threading: a Debuggee is used by one session thread only; the interrupt
// check passed to resume() may be set from another thread. Errors are
// values; nothing here throws.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "state/error.h"
#include "state/motion_vocabulary.h"

namespace ttd::dap {

struct SourceRef {
  std::string path;
  int line = 0;    // 1-based
  int column = 0;  // 1-based, 0 = unknown
};

struct ThreadEntry {
  uint64_t id = 0;
  std::string name;
};

struct FrameEntry {
  uint64_t pc = 0;
  std::string name;                 // function name, or the pc in hex
  std::optional<SourceRef> source;  // absent without line information
};

struct ScopeEntry {
  std::string name;       // "Locals", "Registers: general", ...
  std::string key;        // container key for variables()
  std::string hint;       // DAP presentationHint: "locals", "registers", "arguments", ""
  bool expensive = false;
};

struct VariableEntry {
  std::string name;
  std::string value;
  std::string type;
  std::string children_key;                  // "" = nothing to expand
  std::optional<uint64_t> memory_reference;  // where the value lives
  std::string evaluate_name;                 // an expression evaluate() accepts
};

// Direction, Watchpoint (WatchKind::Access is DAP's "readWrite"),
// StopKind and InterruptCheck: state/motion_vocabulary.h, shared with the
// engine and gdbstub/. DAP's own strings are translated in handlers/.
enum class Motion : uint8_t { Continue, StepOver, StepIn, StepOut };
enum class Granularity : uint8_t { Line, Instruction };

struct ResumeArgs {
  Motion motion = Motion::Continue;
  Direction direction = Direction::Forward;
  // Line falls back to Instruction where the pc has no line information.
  Granularity granularity = Granularity::Line;
  uint64_t tid = 0;
  std::span<const uint64_t> breakpoints;    // pcs
  std::span<const Watchpoint> watchpoints;
};

struct StopInfo {
  StopKind cause = StopKind::Step;
  uint64_t tid = 0;
  uint64_t eid = 0;
  uint64_t breakpoint_addr = 0;  // Breakpoint: the pc that was hit
  size_t watch_index = 0;        // Watchpoint: index into ResumeArgs::watchpoints
  uint64_t access_eid = 0;       // Watchpoint: the step that made the access
  std::string detail;            // shown to the user ("old value 40, new value 0")
};

// A range a data breakpoint can watch, from dataBreakpointInfo.
struct DataTarget {
  uint64_t addr = 0, len = 0;
  std::string description;  // "pears->quantity (4 bytes at 0x4c72f4)"
};

struct EvalResult {
  std::string value;
  std::string type;
  std::string children_key;
  std::optional<uint64_t> memory_reference;
};

struct BreakpointLocation {
  uint64_t addr = 0;
  SourceRef source;  // where the breakpoint really is (line may move)
};

struct DisassembledLine {
  uint64_t addr = 0;
  std::string bytes;   // hex, "" when unknown
  std::string text;    // "mov rax, qword ptr [rbp - 8]"
  std::string symbol;  // "main+12", "" when unknown
  std::optional<SourceRef> source;
  bool invalid = false;  // no instruction here (unknown bytes, undecodable)
};

// Where the current thread's code ran a line before or after now.
struct GotoTarget {
  std::string label;
  uint64_t eid = 0;
  SourceRef source;
};

// "Where did this value come from?" at the current position: a register,
// a memory range, or an expression naming an lvalue (a variable, p->f).
struct OriginRequest {
  std::string expression;  // register name ($rax or rax), ADDR:LEN, or an lvalue
  uint64_t tid = 0;
  size_t frame = 0;
  uint32_t depth = 0, breadth = 0, nodes = 0;  // 0 = the engine's defaults
};
struct OriginAnswer {
  std::string json;  // the document `ttd origin --json` prints (docs/queries.md)
  std::string text;  // the tree `ttd origin` prints
};

// Bounds of a disassemble request (DAP clients ask for a few hundred).
constexpr size_t kMaxDisassembleCount = 10000;
constexpr int64_t kMaxDisassembleOffset = 1 << 16;

class Debuggee {
 public:
  virtual ~Debuggee() = default;

  // One line saying what is being debugged ("x86_64 ucir trace, 1234 steps").
  virtual std::string description() const = 0;
  virtual bool has_source_info() const = 0;

  // Position.
  virtual uint64_t position() const = 0;
  virtual uint64_t end_position() const = 0;
  virtual uint64_t current_thread() const = 0;
  virtual Status seek(uint64_t eid) = 0;
  virtual std::vector<ThreadEntry> threads() const = 0;

  // Moves; returns why it stopped. Errors are failures of the debuggee
  // (a corrupt index), not ordinary stops.
  virtual Result<StopInfo> resume(const ResumeArgs& args, const InterruptCheck& interrupted) = 0;

  // State at the current position.
  virtual Result<std::vector<FrameEntry>> stack(uint64_t tid, size_t max_frames) = 0;
  virtual Result<std::vector<ScopeEntry>> scopes(uint64_t tid, size_t frame) = 0;
  virtual Result<std::vector<VariableEntry>> variables(const std::string& key) = 0;
  virtual Result<EvalResult> evaluate(const std::string& expression, uint64_t tid, size_t frame) = 0;
  // Whether evaluate() could parse the expression, without evaluating it
  // (breakpoint conditions are checked when set, in no particular scope).
  // The default accepts everything: errors then show when it is evaluated.
  virtual Status check_expression(const std::string& expression) const { return {}; }
  // Reads memory of the thread's process; known[i] = 1 where byte i is known.
  virtual Status read_memory(uint64_t tid, uint64_t addr, std::span<uint8_t> data, std::span<uint8_t> known) = 0;
  // count instructions starting instruction_offset instructions from addr
  // (negative: before it). Always returns exactly count lines. Refuses
  // (an error) count > kMaxDisassembleCount and |instruction_offset| >
  // kMaxDisassembleOffset, so the work is bounded by what was asked.
  virtual Result<std::vector<DisassembledLine>> disassemble(uint64_t tid, uint64_t addr, int64_t instruction_offset,
                                                            size_t count) = 0;

  // Resolving what the client names into addresses.
  virtual Result<std::vector<BreakpointLocation>> resolve_line(const std::string& path, int line) = 0;
  virtual Result<std::vector<BreakpointLocation>> resolve_function(const std::string& name) = 0;
  // A watchable range for an expression (in frame `frame` of tid), or for a
  // child `name` of a variables() container.
  virtual Result<DataTarget> data_target(const std::string& expression, uint64_t tid, size_t frame) = 0;
  virtual Result<DataTarget> data_target_in(const std::string& container_key, const std::string& name) = 0;
  // Positions where the given line runs next after / last before now.
  virtual Result<std::vector<GotoTarget>> goto_targets(const std::string& path, int line) = 0;
  // Backward dataflow from the current position (ttdOrigin, evaluate in
  // the "origin" context). A debuggee without a trace index cannot.
  virtual Result<OriginAnswer> origin(const OriginRequest& r) {
    return make_error("origin", "this debuggee cannot trace where values came from");
  }
};

struct LaunchConfig {
  std::string trace;    // path of the trace
  std::string program;  // the traced ELF for source-level debugging ("" = none / from the trace)
  std::string start;    // "", "begin", "end", or an EID
  std::vector<std::pair<std::string, std::string>> source_map;  // recorded prefix -> local prefix
};

// Opens what a launch/attach request names. Messages (progress, warnings
// such as "no DWARF in the program") go to `log`.
using DebuggeeFactory =
    std::function<Result<std::unique_ptr<Debuggee>>(const LaunchConfig&, const std::function<void(const std::string&)>& log)>;

}  // namespace ttd::dap
