#include "formats/umtrace/umtrace_reader.h"

#include <algorithm>
#include <cstdio>
#include <set>

#include "formats/umtrace/address_space_table.h"
#include "formats/umtrace/exec_stream.h"
#include "formats/umtrace/mapped_file.h"
#include "formats/umtrace/step_assembler.h"
#include "formats/umtrace/umtrace_layout.h"
#include "state/machine_state.h"

namespace ttd::fmt::umtrace {

namespace {

constexpr uint64_t kProgressRecords = uint64_t(1) << 20;
constexpr uint64_t kArchProbeRecords = 4096;

std::string hex(uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%llx", (unsigned long long)v);
  return b;
}

// The trace does not say its architecture outright: every record says
// whether it ran in a 64-bit code segment. A 64-bit process (also a WOW64
// one, which starts in 64-bit ntdll) shows 64-bit records early.
ArchId detect_arch(const ExecTable& exec) {
  ExecRecord r;
  const uint64_t n = std::min(exec.count(), kArchProbeRecords);
  if (n == 0) return ArchId::X86_64;
  for (uint64_t i = 0; i < n; ++i)
    if (exec.read(i, r) && (r.flags & kFlag64Bit)) return ArchId::X86_64;
  return ArchId::I386;
}

std::optional<uint64_t> parse_number(const std::string& s) {
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  unsigned long long v = std::strtoull(s.c_str(), &end, 0);
  if (end == s.c_str() || *end != '\0') return std::nullopt;
  return uint64_t(v);
}

}  // namespace

Result<std::unique_ptr<UmtraceReader>> UmtraceReader::open(const std::string& dir) {
  std::unique_ptr<UmtraceReader> r(new UmtraceReader());
  r->dir_ = dir;
  if (auto s = r->open_tables(); !s) return s.error();
  r->describe();
  return r;
}

Status UmtraceReader::open_tables() {
  auto exec = ExecTable::open(dir_);
  if (!exec) return exec.error();
  exec_ = std::move(*exec);
  auto map = ContextMap::read(table_path(dir_, kContextMap));
  if (!map) return map.error();
  map_ = std::make_unique<ContextMap>(std::move(*map));
  info_.arch = detect_arch(*exec_);
  auto regs = RegisterResolver::build(*map_, arch_desc(info_.arch));
  if (!regs) return regs.error();
  regs_ = std::make_unique<RegisterResolver>(std::move(*regs));
  auto ins = InstructionTable::open(table_path(dir_, kInsTable));
  if (!ins) return ins.error();
  instructions_ = std::move(*ins);

  // The small tables: each is optional (a trace without system calls or
  // modules may lack them), but a present one must be well formed.
  const std::string sv = table_path(dir_, kSyscallVtable), so = table_path(dir_, kSyscallOffsets);
  if (file_exists(sv) || file_exists(so)) {
    auto sc = SyscallTable::open(sv, so);
    if (!sc) return sc.error();
    syscalls_ = std::move(*sc);
  }
  if (const std::string p = table_path(dir_, kModuleTable); file_exists(p)) {
    auto m = read_module_table(p);
    if (!m) return m.error();
    modules_ = std::move(*m);
  }
  if (const std::string p = table_path(dir_, kThreadTable); file_exists(p)) {
    auto t = read_thread_table(p);
    if (!t) return t.error();
    threads_ = std::move(*t);
  }
  if (const std::string p = table_path(dir_, kAddressSpace); file_exists(p)) {
    auto a = read_address_space_table(p);
    if (!a) return a.error();
    address_ranges_ = a->size();
    for (const AddressRange& x : *a) address_pages_ += (x.last - x.first + 1) >> 12;
  }
  if (const std::string p = table_path(dir_, kTraceXml); file_exists(p)) {
    auto x = read_trace_xml(p);
    if (!x) return x.error();
    xml_ = std::move(*x);
  }

  if (auto v = xml_.get("App/ProcessID"); v)
    if (auto n = parse_number(*v); n && *n) pid_ = *n;
  // Windows thread ids are what users see; fall back to row + 1 when the
  // table reuses or lacks them (a tid must identify one thread here).
  std::set<uint64_t> seen;
  bool usable = !threads_.empty();
  for (const ThreadRecord& t : threads_) usable = usable && t.win_tid != 0 && seen.insert(t.win_tid).second;
  for (size_t i = 0; i < threads_.size(); ++i) tids_.push_back(usable ? threads_[i].win_tid : i + 1);
  return {};
}

void UmtraceReader::describe() {
  TraceInfo& i = info_;
  i.format = "umtrace";
  i.os = "windows";
  for (const char* key : {"App/ImagePath", "App/Path", "App/CommandLine"})
    if (auto v = xml_.get(key); v && !v->empty()) {
      i.exec_path = *v;
      break;
    }
  i.caps.registers = true;
  i.caps.memory_values = true;
  i.caps.memory_accesses = true;
  i.caps.code_bytes = true;
  i.caps.note =
      "registers from context dumps and each instruction's operands (others unknown until a dump or an "
      "operand names them); memory only where an instruction or context dump gave its value; kernel "
      "effects only as the next context dump and its memory blocks show them; values before an "
      "instrumentation-off gap become unknown; ymm/zmm upper halves, x87 internals and system call "
      "\"extras\" are not kept";
  auto& p = i.properties;
  p.emplace_back("execution records", std::to_string(exec_->count()) + " (table version " +
                                           std::to_string(exec_->version()) + ")");
  p.emplace_back("instructions", std::to_string(instructions_->count()) + " (insRec version " +
                                     std::to_string(instructions_->record_version()) + ")");
  p.emplace_back("system calls", syscalls_ ? std::to_string(syscalls_->count()) + " (unified ids version " +
                                                 std::to_string(syscalls_->unified_ids_version()) + ")"
                                           : std::string("none (no syscall table)"));
  p.emplace_back("context map", std::to_string(map_->elem_count()) + " registers, " +
                                    std::to_string(map_->dump_size()) + "-byte dumps");
  p.emplace_back("process id", std::to_string(pid_));
  for (size_t t = 0; t < threads_.size(); ++t) {
    const ThreadRecord& r = threads_[t];
    p.emplace_back("thread " + std::to_string(t), "tid " + std::to_string(tids_[t]) + ", TIB " + hex(r.tib) +
                                                      ", records " + std::to_string(r.record_count) + ", EIDs " +
                                                      std::to_string(r.first_eid) + ".." + std::to_string(r.last_eid));
  }
  // One line per module: "<path> <start>-<end> loaded at EID <n>[, unloaded at EID <m>]".
  for (size_t m = 0; m < modules_.size(); ++m) {
    const ModuleRecord& r = modules_[m];
    std::string v = r.win_name + " " + hex(r.start) + "-" + hex(r.end) + " loaded at EID " + std::to_string(r.load_eid);
    if (r.unload_eid >= 0) v += ", unloaded at EID " + std::to_string(r.unload_eid);
    p.emplace_back("module " + std::to_string(m), v);
  }
  if (address_ranges_)
    p.emplace_back("address space", std::to_string(address_ranges_) + " ranges, " + std::to_string(address_pages_) + " pages");
  for (const auto& [k, v] : xml_.values) p.emplace_back("xml " + k, v);
}

Status UmtraceReader::read(TraceSink& sink, const Progress& progress) {
  // A fresh instruction table per pass: plans remember which code bytes
  // this pass has already shown.
  auto ins = InstructionTable::open(table_path(dir_, kInsTable));
  if (!ins) return ins.error();
  instructions_ = std::move(*ins);
  return stream(sink, progress);
}

Status UmtraceReader::stream(TraceSink& sink, const Progress& progress) {
  sink.begin(info_);
  AssemblerSetup setup;
  setup.regs = regs_.get();
  setup.instructions = instructions_.get();
  setup.syscalls = syscalls_.get();
  setup.elem_count = map_->elem_count();
  setup.pid = pid_;
  setup.tids = tids_;
  setup.exec_version = exec_->version();
  setup.vtable_path = exec_->vtable().path();
  setup.prev_next_path = table_path(dir_, kExecPrevNext);
  StepAssembler assembler(std::move(setup), sink);

  // Modules come and go at (approximate) EIDs: shown as mappings whose
  // contents are unknown until the trace gives bytes in them.
  struct ModuleEvent {
    uint64_t eid;
    bool load;
    size_t module;
  };
  std::vector<ModuleEvent> events;
  for (size_t m = 0; m < modules_.size(); ++m) {
    events.push_back({uint64_t(std::max<int64_t>(modules_[m].load_eid, 0)), true, m});
    if (modules_[m].unload_eid >= 0) events.push_back({uint64_t(modules_[m].unload_eid), false, m});
  }
  std::stable_sort(events.begin(), events.end(), [](const ModuleEvent& a, const ModuleEvent& b) { return a.eid < b.eid; });
  size_t next_event = 0;
  auto module_events_until = [&](uint64_t eid) {
    for (; next_event < events.size() && events[next_event].eid <= eid; ++next_event) {
      const ModuleEvent& e = events[next_event];
      const ModuleRecord& m = modules_[e.module];
      const uint64_t size = m.end - m.start + 1;
      if (e.load) {
        sink.mem_map(pid_, m.start, size, kProtRead | kProtExec, m.win_name);
        sink.mem_unknown(pid_, m.start, size);  // a mapping reads as zeros to the sink; a module does not
      } else {
        sink.mem_unmap(pid_, m.start, size);
      }
      instructions_->forget_code_in(m.start, m.end);
    }
  };

  auto stream = ExecStream::open(*exec_);
  if (!stream) return stream.error();
  const uint64_t total = stream->vtable_size();
  ExecRecord r;
  uint64_t next_report = 0;
  for (uint64_t eid = 0;; ++eid) {
    auto more = stream->next(r);
    if (!more) return more.error();
    if (!*more) break;
    module_events_until(eid);
    if (auto s = assembler.record(r); !s) return s;
    if (eid >= next_report) {
      next_report = eid + kProgressRecords;
      if (progress && !progress(r.offset, total))
        return make_error_at(exec_->vtable().path(), r.offset, "reading cancelled at record " + std::to_string(eid));
    }
  }
  if (auto s = assembler.finish(); !s) return s;
  if (progress) progress(total, total);
  sink.end();
  return {};
}

}  // namespace ttd::fmt::umtrace
