#include "tools/ttd/engine_target.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>

#include "engine/program_image.h"
#include "engine/query/program_code_fill.h"
#include "state/byte_order.h"
#include "tools/ttd/query_monitor.h"
#include "tools/ttd/trace_options.h"

namespace ttd::cli {

namespace {

std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%" PRIx64, v);
  return buf;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

StopConditions conditions_of(const gdb::ResumeRequest& r) {
  StopConditions c;
  for (const auto& b : r.breakpoints) c.breakpoints.push_back(b.addr);
  std::sort(c.breakpoints.begin(), c.breakpoints.end());
  c.breakpoints.erase(std::unique(c.breakpoints.begin(), c.breakpoints.end()), c.breakpoints.end());
  c.watchpoints.assign(r.watchpoints.begin(), r.watchpoints.end());
  return c;
}

// The auxiliary vector, read from the initial stack at EID 0 when the trace
// starts at the process entry (recorded programs, usercorn): sp points at
// argc, then argv[] and envp[] each end with a null word, then the
// (type, value) pairs up to AT_NULL. Anything unknown or implausible (a
// trace that starts mid-run) yields nothing rather than a guess: a wrong
// AT_ENTRY would make lldb and gdb misplace the executable.
std::optional<std::string> read_initial_auxv(const MachineState& st, uint64_t tid) {
  constexpr uint64_t kMaxStrings = 1u << 16, kMaxAuxvPairs = 256, kAtNull = 0, kAtEntry = 9;
  const ThreadState* thread = st.find_thread(tid);
  if (!thread) return std::nullopt;
  const ArchDesc& arch = thread->regs.arch();
  const ProcessState* process = st.find_process(thread->pid);
  auto sp = thread->regs.get_u64(arch.sp_index);
  if (!process || !sp) return std::nullopt;
  const unsigned w = arch.ptr_size;
  auto word = [&](uint64_t addr) -> std::optional<uint64_t> {
    uint8_t bytes[8], known[8];
    if (process->memory.read(addr, bytes, known, w) != w) return std::nullopt;
    if (arch.endian == Endian::Little) return load_le(bytes, w);
    return w == 8 ? load_be64(bytes) : load_be32(bytes);  // ptr_size is 4 or 8
  };
  auto argc = word(*sp);
  if (!argc || *argc > kMaxStrings) return std::nullopt;
  uint64_t addr = *sp + w * (1 + *argc);
  if (word(addr) != 0u) return std::nullopt;  // argv[argc] is null
  addr += w;
  for (uint64_t i = 0;; ++i, addr += w) {  // envp[] up to its null
    auto v = word(addr);
    if (!v || i == kMaxStrings) return std::nullopt;
    if (*v == 0) break;
  }
  addr += w;
  uint64_t start = addr;
  bool has_entry = false;
  for (uint64_t n = 0; n < kMaxAuxvPairs; ++n, addr += 2 * w) {
    auto type = word(addr), value = word(addr + w);
    if (!type || !value) return std::nullopt;
    has_entry = has_entry || *type == kAtEntry;
    if (*type != kAtNull) continue;
    if (!has_entry) return std::nullopt;
    std::string out(addr + 2 * w - start, '\0');
    process->memory.read(start, reinterpret_cast<uint8_t*>(out.data()), nullptr, out.size());
    return out;
  }
  return std::nullopt;
}

}  // namespace

EngineTarget::EngineTarget(std::shared_ptr<const Trace> trace) : trace_(trace), timeline_(std::move(trace)) {
  if (cursor_now().eid() == 0) auxv_ = read_initial_auxv(cursor_now().state(), cursor_now().current_tid());
}

const ArchDesc& EngineTarget::arch() const { return trace_->arch(); }

gdb::TargetCaps EngineTarget::capabilities() const {
  gdb::TargetCaps caps;
  caps.reverse = true;
  caps.hw_breakpoints = true;
  caps.watchpoints = true;
  caps.watchpoint_slots = 4;  // what lldb expects of real debug registers; we have no limit
  caps.memory_regions = true;
  caps.monitor = true;
  return caps;
}

const ThreadState* EngineTarget::live_thread(uint64_t tid) const {
  const ThreadState* t = cursor_now().state().find_thread(tid);
  if (!t) return nullptr;
  // The thread whose step is here counts as alive even on its ThreadEnd step.
  return t->alive || tid == cursor_now().current_tid() ? t : nullptr;
}

std::vector<gdb::ThreadDesc> EngineTarget::threads() const {
  std::vector<gdb::ThreadDesc> out;
  for (const auto& [tid, t] : cursor_now().state().threads())
    if (live_thread(tid)) out.push_back({tid, t.pid, {}});
  if (out.empty()) {
    // Before the first step of an unusual trace: still show one thread.
    uint64_t tid = cursor_now().current_tid();
    uint64_t pid = 0;
    for (const auto& info : trace_->threads())
      if (info.tid == tid) pid = info.pid;
    out.push_back({tid, pid, {}});
  }
  return out;
}

uint64_t EngineTarget::current_thread() const { return cursor_now().current_tid(); }

uint64_t EngineTarget::pid() const {
  if (const ThreadState* t = cursor_now().state().find_thread(cursor_now().current_tid())) return t->pid;
  return trace_->threads().empty() ? 0 : trace_->threads().front().pid;
}

Result<RegisterFile> EngineTarget::read_registers(uint64_t tid) const {
  if (const ThreadState* t = live_thread(tid)) return t->regs;
  if (threads().size() == 1 && threads().front().tid == tid) return RegisterFile(arch());  // all unknown
  return make_error("thread " + std::to_string(tid), "not alive at eid " + std::to_string(cursor_now().eid()));
}

Status EngineTarget::read_memory(uint64_t tid, uint64_t addr, std::span<uint8_t> data, std::span<uint8_t> known) const {
  std::fill(known.begin(), known.end(), 0);
  const ThreadState* t = live_thread(tid);
  uint64_t pid_of_thread = t ? t->pid : pid();
  const ProcessState* p = cursor_now().state().find_process(pid_of_thread);
  if (!p) return {};  // nothing known about this process's memory
  Status st = p->memory.read_checked(addr, data.data(), known.data(), data.size());
  if (st) query::fill_code_from_program(*trace_, cursor_now().eid(), pid_of_thread, addr, data.data(), known.data(),
                                        data.size());
  return st;
}

std::optional<gdb::MemoryRegionDesc> EngineTarget::memory_region(uint64_t tid, uint64_t addr) const {
  const ThreadState* t = live_thread(tid);
  const ProcessState* p = cursor_now().state().find_process(t ? t->pid : pid());
  if (!p || p->regions.all().empty()) return std::nullopt;
  gdb::MemoryRegionDesc d;
  if (const MemoryRegion* r = p->regions.find(addr)) {
    d.start = r->start;
    d.size = r->size;
    d.mapped = true;
    d.readable = r->prot & kProtRead;
    d.writable = r->prot & kProtWrite;
    d.executable = r->prot & kProtExec;
    d.name = r->name;
    return d;
  }
  d.start = addr;
  const MemoryRegion* next = p->regions.next_after(addr);
  d.size = next ? next->start - addr : (addr == 0 ? ~uint64_t(0) : ~uint64_t(0) - addr + 1);
  return d;
}

gdb::StopReason EngineTarget::translate(const Stop& stop, const gdb::ResumeRequest& request) const {
  gdb::StopReason out;
  out.tid = stop.tid;
  switch (stop.kind) {
    case StopKind::Step: out.kind = gdb::StopReplyKind::StepDone; break;
    case StopKind::Breakpoint: {
      out.kind = gdb::StopReplyKind::HwBreakpoint;
      for (const auto& b : request.breakpoints)
        if (b.addr == stop.addr && b.type == gdb::BreakpointType::Software) out.kind = gdb::StopReplyKind::SwBreakpoint;
      break;
    }
    case StopKind::Watchpoint: {
      out.kind = gdb::StopReplyKind::Watchpoint;
      out.watch_addr = stop.addr;
      out.watch_kind = stop.watch;
      out.tid = stop.access_tid;  // the thread that made the access, not the one that runs next
      break;
    }
    case StopKind::HistoryBegin: out.kind = gdb::StopReplyKind::HistoryBegin; break;
    case StopKind::HistoryEnd: out.kind = gdb::StopReplyKind::HistoryEnd; break;
    case StopKind::Interrupted: out.kind = gdb::StopReplyKind::Interrupted; break;
  }
  return out;
}

Result<gdb::StopReason> EngineTarget::resume(const gdb::ResumeRequest& request, const InterruptCheck& interrupted) {
  if (pending_seek_) {
    uint64_t eid = *pending_seek_;
    pending_seek_.reset();
    Status st = timeline_.seek(eid);
    if (!st) return st.error();
    return gdb::StopReason{gdb::StopReplyKind::StepDone, cursor_now().current_tid()};
  }
  const Direction dir = request.direction;
  StopConditions c = conditions_of(request);
  if (request.action == gdb::ResumeAction::Step) {
    Stop st = timeline_.step(dir, request.tid, c.watchpoints);
    if (st.error) return *st.error;
    return translate(st, request);
  }
  // gdb steps over a watched access itself where the trap comes before it
  // (z2, s or bs, Z2), and then expects an access at the start reported.
  RunOptions options;
  options.report_access_at_start = true;
  Stop st = timeline_.run(dir, c, interrupted, options);
  if (st.error) return *st.error;  // a damaged index: said, not a stop that may be wrong
  return translate(st, request);
}

std::optional<std::string> EngineTarget::exec_file() const {
  const std::string& path = trace_->info().exec_path;
  if (path.empty()) return std::nullopt;
  return path;
}

std::optional<uint64_t> EngineTarget::load_offset() const {
  // With an auxv the debugger's loader places the executable itself
  // (AT_ENTRY, AT_PHDR), PIE or not; a second answer could only disagree.
  if (auxv_) return std::nullopt;
  // The program image holds pcs the trace runs: at its link addresses, or
  // for a PIE at the bias that puts its entry where the trace runs it
  // (engine/program_image.h). lldb slides the executable by it.
  if (const ProgramImage* program = trace_->program()) return program->bias();
  return std::nullopt;
}

std::string EngineTarget::thread_extra_info(uint64_t tid) const {
  for (const auto& t : trace_->threads())
    if (t.tid == tid)
      return "eids " + std::to_string(t.first_eid) + ".." + std::to_string(t.last_eid) + ", " +
             std::to_string(t.steps) + " steps";
  return {};
}

std::string EngineTarget::describe_position() const {
  std::string out = "eid " + std::to_string(cursor_now().eid()) + " of " + std::to_string(trace_->step_count());
  if (auto step = cursor_now().current_step()) {
    out += ": thread " + std::to_string(step->tid) + " pc " + hex(step->pc) + " (" +
           std::string(fmt::step_kind_name(step->kind)) + ")";
  } else {
    out += ": end of trace";
  }
  return out + "\n";
}

std::string EngineTarget::monitor_help() const {
  return "eid                show the current position (EID)\n"
         "when               the position with its thread, pc and step kind\n"
         "seek EID|+N|-N|start|end\n"
         "                   go there at the next continue or stepi (either direction)\n"
         "info               the trace: file, format, architecture, steps, threads, index\n"
         "threads            every thread of the trace with its EID range\n"
         "help               this text\n" +
         query_monitor_help();
}

gdb::MonitorReply EngineTarget::seek_command(std::string_view arg) {
  uint64_t count = trace_->step_count(), here = cursor_now().eid(), target = 0, n = 0;
  std::string text(arg);
  if (text == "start") target = 0;
  else if (text == "end") target = count;
  else if (!text.empty() && (text[0] == '+' || text[0] == '-') && parse_u64(text.substr(1), n))
    target = text[0] == '+' ? (n > count - here ? count : here + n) : (n > here ? 0 : here - n);
  else if (parse_u64(text, n)) target = n;
  else return {"seek takes an EID (decimal or 0x-hex), +N, -N, start or end\n", false};
  if (target > count)
    return {"eid " + std::to_string(target) + " is past the end (the trace has " + std::to_string(count) + " steps)\n",
            false};
  pending_seek_ = target;
  return {"eid " + std::to_string(target) + ": continue or stepi to go there\n"};
}

gdb::MonitorReply EngineTarget::monitor(std::string_view command) {
  std::string streamed;
  gdb::MonitorReply reply = monitor(command, [&](std::string_view text) { return streamed += text, true; }, {});
  reply.output = streamed + reply.output;
  return reply;
}

gdb::MonitorReply EngineTarget::monitor(std::string_view command, const gdb::MonitorOutput& out,
                                        const InterruptCheck& interrupted) {
  command = trim(command);
  std::string_view verb = command.substr(0, command.find(' '));
  std::string_view rest = trim(command.substr(verb.size()));
  if (verb == "eid") return {"eid " + std::to_string(cursor_now().eid()) + "\n"};
  if (verb == "when") return {describe_position()};
  if (verb == "seek") return seek_command(rest);
  if (auto reply = run_query_monitor(trace_, cursor_now().eid(), verb, rest, out, interrupted)) return *reply;
  if (verb == "help") return {monitor_help()};
  if (verb == "info") {
    const IndexStats& st = trace_->stats();
    std::string out = "trace:   " + trace_->path() + "\n";
    out += "format:  " + trace_->info().format + "\n";
    out += "arch:    " + arch().name + "\n";
    out += "steps:   " + std::to_string(trace_->step_count()) + "\n";
    out += "threads: " + std::to_string(trace_->threads().size()) + "\n";
    if (!trace_->info().exec_path.empty()) out += "program: " + trace_->info().exec_path + "\n";
    out += "index:   " + st.index_path + " (" + std::to_string(st.chunks) + " chunks)\n";
    return {out + describe_position()};
  }
  if (verb == "threads") {
    // A trace may have very many threads: one line at a time.
    for (const auto& t : trace_->threads())
      if (!out("thread " + std::to_string(t.tid) + " pid " + std::to_string(t.pid) + ": " + thread_extra_info(t.tid) +
               "\n"))
        break;
    return {};
  }
  return {"unknown monitor command '" + std::string(verb) + "' (try: monitor help)\n", false};
}

}  // namespace ttd::cli
