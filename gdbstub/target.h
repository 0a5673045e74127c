// The narrow interface between the RSP stub and whatever it debugs. The stub
// knows no trace format and no engine: it asks a Target for the architecture,
// threads, registers and memory at the current position, and asks it to move
// (forwards or backwards) under a set of breakpoints and watchpoints. Every
// optional feature is a capability flag; the stub derives qSupported, the
// vCont? reply and which packets it accepts from them.
//
// Threading: a Target serves one debugger connection and is called from
// that connection's thread only. Errors are values (ttd::Result); nothing
// here throws across the interface.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "state/arch.h"
#include "state/error.h"
#include "state/motion_vocabulary.h"
#include "state/register_file.h"

namespace ttd::gdb {

struct ThreadDesc {
  uint64_t tid = 0;
  uint64_t pid = 0;
  std::string name;  // may be empty
};

enum class BreakpointType : uint8_t { Software, Hardware };
struct Breakpoint {
  uint64_t addr = 0;
  BreakpointType type = BreakpointType::Software;
  uint64_t kind = 0;  // the client's "kind" field (instruction size); informative
  bool operator==(const Breakpoint&) const = default;
};

// Watchpoints, Direction, InterruptCheck: state/motion_vocabulary.h (the
// engine and dap/ use the same ones). Z2/Z3/Z4 map to WatchKind Write /
// Read / Access in packets/breakpoints.cpp.

enum class ResumeAction : uint8_t { Continue, Step };

struct ResumeRequest {
  Direction direction = Direction::Forward;
  ResumeAction action = ResumeAction::Continue;
  // For Step: the thread to step (always one of threads()). Forward: run
  // until that thread's next step is about to execute; backward: go to that
  // thread's latest step before here. For Continue: the thread the client
  // last named (informative; all threads run).
  uint64_t tid = 0;
  std::span<const Breakpoint> breakpoints;
  std::span<const Watchpoint> watchpoints;
};

// Why a resume stopped. `tid` is the thread to report (the one that hit the
// breakpoint / watchpoint / finished its step, or the current thread).
// Contract for breakpoints: the state after the stop has pc == the
// breakpoint address. A backward continue never reports a breakpoint at the
// pc it started from (gdb does not step off it first in reverse).
// Watchpoint timing per ArchDesc::watch_timing is the target's business.
// This is the stop reply's vocabulary (what goes on the wire), richer than
// ttd::StopKind: which breakpoint packet, the attach stop, the exit.
enum class StopReplyKind : uint8_t {
  Attached,      // the position a client finds on connecting, before any resume:
                 // T05 for gdb, T13 (SIGSTOP) for lldb (stop_reply.h says why)
  StepDone,      // T05, no reason
  SwBreakpoint,  // T05 swbreak: (when the client understands it)
  HwBreakpoint,  // T05 hwbreak:
  Watchpoint,    // T05 watch:/rwatch:/awatch:<watch_addr>
  HistoryBegin,  // T05 replaylog:begin (T05, never T00: lldb-16 would loop)
  HistoryEnd,    // T05 replaylog:end
  Interrupted,   // T02 (Ctrl-C or the client went away)
  Exited,        // W<exit_code>
};

struct StopReason {
  StopReplyKind kind = StopReplyKind::StepDone;
  uint64_t tid = 0;
  uint64_t watch_addr = 0;
  WatchKind watch_kind = WatchKind::Write;
  int exit_code = 0;
};

// Resumes poll an InterruptCheck (state/motion_vocabulary.h): true when the
// client sent Ctrl-C or disconnected; the target then returns
// StopReplyKind::Interrupted.

// A memory region as lldb's qMemoryRegionInfo wants it.
struct MemoryRegionDesc {
  uint64_t start = 0, size = 0;
  bool mapped = false;
  bool readable = false, writable = false, executable = false;
  std::string name;  // file or "[heap]"; may be empty
};

struct MonitorReply {
  std::string output;  // shown to the user as is (add the trailing newline)
  bool ok = true;      // false: the command failed (the stub replies E)
};

// Where a streaming monitor command writes its output as it produces it;
// the stub sends it on in O packets at once, so no command buffers more
// than a line. Returns false when the command must stop (the client sent
// Ctrl-C or went away).
using MonitorOutput = std::function<bool(std::string_view text)>;

struct TargetCaps {
  bool reverse = false;          // bc / bs (ReverseContinue+ / ReverseStep+)
  bool hw_breakpoints = true;    // Z1
  bool watchpoints = true;       // Z2 / Z3 / Z4
  uint32_t watchpoint_slots = 4; // qWatchpointSupportInfo num:
  bool memory_regions = false;   // memory_region() is meaningful
  bool monitor = false;          // monitor() is meaningful (qRcmd)
};

class Target {
 public:
  virtual ~Target() = default;

  virtual const ArchDesc& arch() const = 0;
  virtual TargetCaps capabilities() const = 0;

  // Threads alive at the current position, in a stable order.
  virtual std::vector<ThreadDesc> threads() const = 0;
  // The thread that runs next at the current position (reported by '?'
  // before any resume, and used when the client says "any thread").
  virtual uint64_t current_thread() const = 0;

  // A copy of the thread's registers with validity (unknown -> "xx").
  // Error for an unknown thread.
  virtual Result<RegisterFile> read_registers(uint64_t tid) const = 0;

  // Reads data.size() bytes of the thread's process memory at addr into
  // data; known[i] is set to 1 when byte i is known, 0 when the trace does
  // not tell (data[i] is then meaningless). Error for an unknown thread.
  virtual Status read_memory(uint64_t tid, uint64_t addr, std::span<uint8_t> data,
                             std::span<uint8_t> known) const = 0;

  // The mapped region holding addr, or for an unmapped address an unmapped
  // region from addr up to the next mapping (or the end of the address
  // space). nullopt when the target knows no mappings at all.
  virtual std::optional<MemoryRegionDesc> memory_region(uint64_t tid, uint64_t addr) const;

  // Moves the position. Runs until a stop condition, the end (or start) of
  // history, or until `interrupted` returns true. Errors are for failures of
  // the target itself (a corrupt index), not for ordinary stops.
  virtual Result<StopReason> resume(const ResumeRequest& request, const InterruptCheck& interrupted) = 0;

  // `monitor <text>` (qRcmd). Only called when capabilities().monitor.
  virtual MonitorReply monitor(std::string_view command);
  // The streaming form the stub calls: output may go to `out` while the
  // command runs (the returned reply's output follows it), and a long
  // command polls `interrupted` and ends early when it returns true. The
  // default answers with monitor(command).
  virtual MonitorReply monitor(std::string_view command, const MonitorOutput& out, const InterruptCheck& interrupted);
  // Lines for `monitor help` describing what monitor() accepts.
  virtual std::string monitor_help() const { return {}; }

  // Path of the traced executable on this machine, when known.
  virtual std::optional<std::string> exec_file() const { return std::nullopt; }
  // The process's auxiliary vector (raw target-order words, ending with
  // AT_NULL), when known. Served as qXfer:auxv:read: lldb's Linux loader
  // needs AT_ENTRY to place the executable (without it no breakpoint in a
  // loaded ELF resolves), gdb uses it for PIE and `info auxv`.
  virtual std::optional<std::string> auxv() const { return std::nullopt; }
  // How far the executable sits from its ELF link addresses, when the
  // target knows (qOffsets "Text=..;Data=.."). lldb places the executable
  // by it when there is no auxv to do so (ProcessGDBRemote's
  // MaybeLoadExecutableModule); gdb relocates its symbol file by it.
  // nullopt answers qOffsets empty: the debugger keeps its own placement.
  virtual std::optional<uint64_t> load_offset() const { return std::nullopt; }
  // target.xml served through qXfer:features:read. Defaults to the one
  // generated from arch().
  virtual std::string target_description() const;
  // Free text qThreadExtraInfo shows next to a thread ("main", "eid 42").
  virtual std::string thread_extra_info(uint64_t tid) const;
  // The process id of the debuggee (qProcessInfo, W;process:, vKill).
  virtual uint64_t pid() const;
};

}  // namespace ttd::gdb
