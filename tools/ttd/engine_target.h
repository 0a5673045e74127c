// The engine behind the RSP stub: a gdb::Target over a ttd::Timeline on a
// shared, immutable ttd::Trace. One EngineTarget per debugger connection;
// several may share the Trace (each has its own position).
//
// A translator: positions, threads, registers and memory come straight
// from the timeline's MachineState (unknown stays unknown); vCont / s / bs /
// c / bc become Timeline::step and Timeline::run (engine/motion/
// timeline.h), which own rr's semantics, the watched-access rule per
// architecture and the history boundaries; the Stop goes back as a stop
// reply. Monitor commands: eid, seek, when, info,
// threads, and the history queries of query_monitor.h (history,
// history-reg, executions, calls, search) at the current position.
#pragma once
#include <memory>
#include <optional>
#include <string>

#include "engine/motion/timeline.h"
#include "engine/trace.h"
#include "gdbstub/target.h"

namespace ttd::cli {

class EngineTarget final : public gdb::Target {
 public:
  explicit EngineTarget(std::shared_ptr<const Trace> trace);

  const ArchDesc& arch() const override;
  gdb::TargetCaps capabilities() const override;
  std::vector<gdb::ThreadDesc> threads() const override;
  uint64_t current_thread() const override;
  Result<RegisterFile> read_registers(uint64_t tid) const override;
  Status read_memory(uint64_t tid, uint64_t addr, std::span<uint8_t> data, std::span<uint8_t> known) const override;
  std::optional<gdb::MemoryRegionDesc> memory_region(uint64_t tid, uint64_t addr) const override;
  Result<gdb::StopReason> resume(const gdb::ResumeRequest& request, const InterruptCheck& interrupted) override;
  gdb::MonitorReply monitor(std::string_view command) override;
  // Query commands stream their lines to `out` and stop on `interrupted`.
  gdb::MonitorReply monitor(std::string_view command, const gdb::MonitorOutput& out,
                            const InterruptCheck& interrupted) override;
  std::string monitor_help() const override;
  std::optional<std::string> exec_file() const override;
  std::optional<std::string> auxv() const override { return auxv_; }
  std::optional<uint64_t> load_offset() const override;
  std::string thread_extra_info(uint64_t tid) const override;
  uint64_t pid() const override;

  const Cursor& cursor() const { return timeline_.cursor(); }

 private:
  const ThreadState* live_thread(uint64_t tid) const;
  gdb::StopReason translate(const Stop& stop, const gdb::ResumeRequest& request) const;
  gdb::MonitorReply seek_command(std::string_view arg);
  std::string describe_position() const;

  std::shared_ptr<const Trace> trace_;
  const Cursor& cursor_now() const { return timeline_.cursor(); }
  Timeline timeline_;
  // `monitor seek N` moves at the next resume, which then reports a stop
  // there: a debugger only refreshes registers, memory and frames after a
  // stop reply, never after a monitor command.
  std::optional<uint64_t> pending_seek_;
  // Recovered once from the initial stack (see engine_target.cpp).
  std::optional<std::string> auxv_;
};

}  // namespace ttd::cli
