#include "dap/model/engine_debuggee.h"

#include <algorithm>

#include "dap/model/frame_scope.h"
#include "engine/program_image.h"
#include "engine/query/program_code_fill.h"

namespace ttd::dap {

EngineDebuggee::EngineDebuggee(std::shared_ptr<const Trace> trace, std::unique_ptr<dbg::DebugInfo> debug, LaunchConfig config)
    : trace_(std::move(trace)),
      debug_(std::move(debug)),
      config_(std::move(config)),
      timeline_(trace_),
      lines_(debug_.get()) {}

EngineDebuggee::~EngineDebuggee() = default;

std::string EngineDebuggee::description() const {
  const auto& info = trace_->info();
  std::string s = trace_->arch().name + " " + info.format + " trace " + trace_->path() + ", " +
                  std::to_string(trace_->step_count()) + " steps, " + std::to_string(trace_->threads().size()) + " thread" +
                  (trace_->threads().size() == 1 ? "" : "s");
  if (debug_) s += debug_->has_lines() ? "; source lines from " + debug_->path() : "; " + debug_->path() + " has no line information (instruction stepping only)";
  else s += "; no program given: instruction granularity only";
  return s;
}

bool EngineDebuggee::has_source_info() const { return debug_ && debug_->has_lines(); }

Status EngineDebuggee::seek(uint64_t eid) { return timeline_.seek(eid); }

std::vector<ThreadEntry> EngineDebuggee::threads() const {
  std::vector<ThreadEntry> out;
  uint64_t pos = timeline_.eid(), cur = current_thread();
  bool several_processes = false;
  for (const auto& t : trace_->threads())
    if (t.pid != trace_->threads().front().pid) several_processes = true;
  for (const auto& t : trace_->threads()) {
    bool alive = (t.first_eid <= pos && pos <= t.last_eid + 1) || t.tid == cur;
    if (!alive) continue;
    std::string name = "thread " + std::to_string(t.tid);
    if (several_processes) name += " (process " + std::to_string(t.pid) + ")";
    out.push_back({t.tid, name});
  }
  if (out.empty()) out.push_back({cur, "thread " + std::to_string(cur)});
  return out;
}

uint64_t EngineDebuggee::thread_or_current(uint64_t tid) const { return thread_state(tid) ? tid : current_thread(); }

Status EngineDebuggee::read_process(uint64_t tid, uint64_t addr, uint8_t* dst, uint8_t* known, size_t len) const {
  const MachineState& st = timeline_.state();
  const ThreadState* th = st.find_thread(tid);
  const ProcessState* p = th ? st.find_process(th->pid) : nullptr;
  if (!p && !st.processes().empty()) p = &st.processes().begin()->second;
  if (!p) {
    std::fill(dst, dst + len, 0);
    std::fill(known, known + len, 0);
    return {};
  }
  return p->memory.read_checked(addr, dst, known, len);
}

Status EngineDebuggee::read_memory(uint64_t tid, uint64_t addr, std::span<uint8_t> data, std::span<uint8_t> known) {
  if (data.size() != known.size()) return make_error("readMemory", "buffer sizes differ");
  uint64_t t = thread_or_current(tid);
  Status st = read_process(t, addr, data.data(), known.data(), data.size());
  const ThreadState* th = timeline_.state().find_thread(t);
  if (st && th)
    query::fill_code_from_program(*trace_, timeline_.eid(), th->pid, addr, data.data(), known.data(), data.size());
  return st;
}

size_t EngineDebuggee::read_code(uint64_t tid, uint64_t addr, uint8_t* dst, size_t len) const {
  uint8_t known[32];
  len = std::min(len, sizeof known);
  read_process(tid, addr, dst, known, len);
  size_t n = 0;
  while (n < len && known[n]) ++n;
  if (n == len) return n;
  // The trace does not hold these code bytes: take them from the program
  // (the engine's image, as the stepper's classes do; else the debug file).
  if (trace_->program()) return n + trace_->program()->read(addr + n, dst + n, len - n);
  if (!debug_) return n;
  return n + debug_->read_code(addr + n, dst + n, len - n);
}

std::string EngineDebuggee::to_client_path(const std::string& recorded) const {
  for (const auto& [from, to] : config_.source_map)
    if (!from.empty() && recorded.rfind(from, 0) == 0) return to + recorded.substr(from.size());
  return recorded;
}

std::string EngineDebuggee::to_recorded_path(const std::string& client) const {
  for (const auto& [from, to] : config_.source_map)
    if (!to.empty() && client.rfind(to, 0) == 0) return from + client.substr(to.size());
  return client;
}

std::optional<SourceRef> EngineDebuggee::source_at(uint64_t pc) const {
  if (!debug_) return std::nullopt;
  auto li = debug_->line_at(pc);
  if (!li) return std::nullopt;
  return SourceRef{to_client_path(li->file), li->line, li->column};
}

const std::vector<FrameData>& EngineDebuggee::frames(uint64_t tid) {
  if (frames_eid_ != timeline_.eid()) {
    frames_.clear();
    frames_eid_ = timeline_.eid();
  }
  if (auto it = frames_.find(tid); it != frames_.end()) return it->second;
  std::vector<FrameData>& out = frames_[tid];
  const ThreadState* th = thread_state(tid);
  const ArchDesc& arch = trace_->arch();
  if (!th) return out;
  auto pc = th->regs.get_u64(arch.pc_index);
  if (!pc) return out;
  std::vector<dbg::UnwoundFrame> unwound;
  if (debug_) {
    auto regs = [&](int regno) -> std::optional<uint64_t> {
      auto idx = arch.find(debug_->dwarf_register_name(regno));
      if (!idx) return std::nullopt;
      return th->regs.get_u64(*idx);
    };
    auto mem = [&](uint64_t addr, uint8_t* dst, size_t len) {
      std::vector<uint8_t> known(len);
      read_process(tid, addr, dst, known.data(), len);
      return std::all_of(known.begin(), known.end(), [](uint8_t k) { return k != 0; });
    };
    unwound = debug_->unwind(*pc, regs, mem, 256);
  } else {
    dbg::UnwoundFrame f;
    f.pc = *pc;
    unwound.push_back(f);
  }
  for (size_t i = 0; i < unwound.size(); ++i) {
    FrameData fd;
    fd.unwound = std::move(unwound[i]);
    fd.lookup_pc = i == 0 ? fd.unwound.pc : fd.unwound.pc - 1;  // the call, not what follows it
    fd.entry.pc = fd.unwound.pc;
    std::optional<dbg::FunctionSym> fn = debug_ ? debug_->function_at(fd.lookup_pc) : std::nullopt;
    char hex[32];
    std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(fd.unwound.pc));
    fd.entry.name = fn ? fn->name : hex;
    fd.entry.source = source_at(fd.lookup_pc);
    out.push_back(std::move(fd));
  }
  return out;
}

Result<std::vector<FrameEntry>> EngineDebuggee::stack(uint64_t tid, size_t max_frames) {
  if (!thread_state(tid)) return make_error("stackTrace", "thread " + std::to_string(tid) + " has no state at EID " + std::to_string(position()));
  std::vector<FrameEntry> out;
  for (const auto& f : frames(tid)) {
    if (out.size() >= max_frames) break;
    out.push_back(f.entry);
  }
  return out;
}

Result<FrameScope> EngineDebuggee::frame_scope(uint64_t tid, size_t frame) {
  const auto& fs = frames(tid);
  if (frame >= fs.size())
    return make_error("frame", "thread " + std::to_string(tid) + " has no frame " + std::to_string(frame) + " at EID " + std::to_string(position()));
  return FrameScope(*this, tid, frame, fs[frame]);
}

}  // namespace ttd::dap
