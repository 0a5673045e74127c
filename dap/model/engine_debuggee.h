// The Debuggee the DAP session drives, over the replay engine: a
// translator from DAP's requests to the engine's Timeline (position, state
// and every move: engine/motion/timeline.h), with the traced program's
// debug information (when there is a program) for lines, frames, variables
// and symbols; the line table goes to the engine's stepper as a LineTable.
// Without a program everything still works at instruction granularity.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "dap/debuggee.h"
#include "dap/model/source_line_table.h"
#include "dap/model/expression.h"
#include "debuginfo/debug_info.h"
#include "engine/motion/timeline.h"

namespace ttd::dap {

class FrameScope;

// A frame as the model keeps it: the unwound registers and what is shown.
struct FrameData {
  dbg::UnwoundFrame unwound;
  FrameEntry entry;
  uint64_t lookup_pc = 0;  // pc used for lines and scopes (return address - 1 for callers)
};

class EngineDebuggee : public Debuggee {
 public:
  // debug may be null (no program, or one without usable debug info).
  EngineDebuggee(std::shared_ptr<const Trace> trace, std::unique_ptr<dbg::DebugInfo> debug, LaunchConfig config);
  ~EngineDebuggee() override;

  std::string description() const override;
  bool has_source_info() const override;
  uint64_t position() const override { return timeline_.eid(); }
  uint64_t end_position() const override { return trace_->step_count(); }
  uint64_t current_thread() const override { return timeline_.current_tid(); }
  Status seek(uint64_t eid) override;
  std::vector<ThreadEntry> threads() const override;

  Result<StopInfo> resume(const ResumeArgs& args, const InterruptCheck& interrupted) override;

  Result<std::vector<FrameEntry>> stack(uint64_t tid, size_t max_frames) override;
  Result<std::vector<ScopeEntry>> scopes(uint64_t tid, size_t frame) override;
  Result<std::vector<VariableEntry>> variables(const std::string& key) override;
  Result<EvalResult> evaluate(const std::string& expression, uint64_t tid, size_t frame) override;
  Status check_expression(const std::string& expression) const override { return check_expression_syntax(expression); }
  Status read_memory(uint64_t tid, uint64_t addr, std::span<uint8_t> data, std::span<uint8_t> known) override;
  Result<std::vector<DisassembledLine>> disassemble(uint64_t tid, uint64_t addr, int64_t instruction_offset,
                                                    size_t count) override;

  Result<std::vector<BreakpointLocation>> resolve_line(const std::string& path, int line) override;
  Result<std::vector<BreakpointLocation>> resolve_function(const std::string& name) override;
  Result<DataTarget> data_target(const std::string& expression, uint64_t tid, size_t frame) override;
  Result<DataTarget> data_target_in(const std::string& container_key, const std::string& name) override;
  Result<std::vector<GotoTarget>> goto_targets(const std::string& path, int line) override;
  Result<OriginAnswer> origin(const OriginRequest& r) override;  // debuggee_origin.cpp

  // For FrameScope and the helpers in this folder.
  const Trace& trace() const { return *trace_; }
  const dbg::DebugInfo* debug() const { return debug_.get(); }
  const ThreadState* thread_state(uint64_t tid) const { return timeline_.state().find_thread(tid); }
  // Memory of tid's process at the current position; an error when a page
  // of the range cannot be read from the index (its bytes then unknown).
  Status read_process(uint64_t tid, uint64_t addr, uint8_t* dst, uint8_t* known, size_t len) const;
  // Code bytes: trace memory first, then the program file.
  size_t read_code(uint64_t tid, uint64_t addr, uint8_t* dst, size_t len) const;
  // Frames of tid at the current position, innermost first (cached).
  const std::vector<FrameData>& frames(uint64_t tid);
  std::optional<SourceRef> source_at(uint64_t pc) const;
  // sourceMap: recorded (DWARF) path <-> the client's path.
  std::string to_client_path(const std::string& recorded) const;
  std::string to_recorded_path(const std::string& client) const;

 private:
  Result<StopInfo> resume_continue(const ResumeArgs& args, const InterruptCheck& interrupted);
  Result<StopInfo> resume_step(const ResumeArgs& args, const InterruptCheck& interrupted);
  // DAP's stop event from the engine's Stop (cause, thread, detail text).
  StopInfo translate(const Stop& stop, const ResumeArgs& args);
  std::string watch_detail(const Stop& stop, const Watchpoint& w);
  Result<FrameScope> frame_scope(uint64_t tid, size_t frame);
  uint64_t thread_or_current(uint64_t tid) const;

  std::shared_ptr<const Trace> trace_;
  std::unique_ptr<dbg::DebugInfo> debug_;
  LaunchConfig config_;
  Timeline timeline_;
  SourceLineTable lines_;
  uint64_t frames_eid_ = UINT64_MAX;
  std::map<uint64_t, std::vector<FrameData>> frames_;
};

// Opens the trace (and the program, if given or named by the trace) for a
// launch configuration: the DebuggeeFactory `ttd dap` uses.
Result<std::unique_ptr<Debuggee>> open_engine_debuggee(const LaunchConfig& config,
                                                      const std::function<void(const std::string&)>& log);

}  // namespace ttd::dap
