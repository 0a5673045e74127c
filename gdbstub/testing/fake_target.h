// A tiny in-memory machine implementing gdb::Target, for the stub's unit
// tests and the packet fuzzer. Header-only so any test binary can use it
// without another library.
//
// The machine is a recorded program of a few steps on two threads over a
// toy 64-bit little-endian architecture (r0-r3, sp, pc, flags, v0). Its
// resume semantics mirror the engine's (engine/cursor.h): forward continue
// always runs the starting step, backward continue never reports a
// breakpoint at the starting pc, watchpoints stop after the access going
// forward and before it going backward (x86 timing), the ends of history
// stop with HistoryBegin / HistoryEnd. Some registers and memory bytes are
// unknown, so 'xx' / partial-read paths get exercised.
#pragma once
#include <algorithm>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "gdbstub/target.h"

namespace ttd::gdb::testing {

inline const ArchDesc& toy_arch() {
  static const ArchDesc arch = [] {
    ArchDesc a;
    a.id = ArchId::X86_64;
    a.name = "toy64";
    a.gdb_arch = "i386:x86-64";
    a.lldb_triple = "x86_64-unknown-linux-gnu";
    a.watch_timing = WatchTiming::AfterAccess;
    const char* names[] = {"r0", "r1", "r2", "r3", "sp", "pc", "flags", "v0"};
    const uint16_t bits[] = {64, 64, 64, 64, 64, 64, 32, 128};
    uint32_t offset = 0;
    for (uint16_t i = 0; i < 8; ++i) {
      RegisterDesc r;
      r.name = names[i];
      r.bits = bits[i];
      r.gdb_regnum = i;
      r.type = i == 5 ? "code_ptr" : i == 4 ? "data_ptr" : i == 7 ? "vec128" : "int";
      r.feature = "org.gnu.gdb.i386.core";
      r.group = "general";
      r.offset = offset;
      offset += r.bytes();
      a.regs.push_back(r);
    }
    a.sp_index = 4;
    a.pc_index = 5;
    a.file_bytes = offset;
    return a;
  }();
  return arch;
}

// Register indices of the toy architecture.
enum ToyReg : uint16_t { R0, R1, R2, R3, SP, PC, FLAGS, V0 };

struct FakeStep {
  uint64_t tid = 1;
  uint64_t pc = 0;
  std::vector<std::pair<uint16_t, uint64_t>> reg_writes;
  uint64_t mem_addr = 0;
  uint32_t mem_len = 0;  // 0: no memory access
  bool mem_write = false;
  uint64_t mem_value = 0;
};

inline std::vector<FakeStep> default_fake_program() {
  return {
      {1, 0x1000, {{R0, 1}}},
      {1, 0x1004, {}, 0x8000, 8, true, 0x11},
      {2, 0x1040, {{R1, 2}}},
      {1, 0x1008, {}, 0x8000, 8, false},
      {2, 0x1044, {}, 0x8008, 4, true, 0x22},
      {1, 0x100c, {{R0, 3}}},
      {1, 0x1010, {}, 0x8000, 8, true, 0x33},
      {1, 0x1004, {{R0, 4}}},
      {2, 0x1048, {}},
      {1, 0x1014, {}},
  };
}

class FakeTarget : public Target {
 public:
  explicit FakeTarget(std::vector<FakeStep> program = default_fake_program()) : program_(std::move(program)) {
    caps.reverse = true;
    caps.memory_regions = true;
    caps.monitor = true;
  }

  // Knobs for tests.
  TargetCaps caps;
  std::optional<std::string> exec_path = std::string("/bin/fake");
  std::optional<std::string> auxv_bytes;
  std::optional<uint64_t> offset;  // load_offset()
  bool exit_at_end = false;    // forward end of history reports Exited
  bool spin_forever = false;   // continue runs until interrupted (max ~10 s)
  // Observations for tests.
  int resume_count = 0;
  ResumeRequest last_request;
  size_t last_breakpoint_count = 0, last_watchpoint_count = 0;

  size_t position() const { return pos_; }
  void seek(size_t pos) { pos_ = std::min(pos, program_.size()); }
  const std::vector<FakeStep>& program() const { return program_; }

  const ArchDesc& arch() const override { return toy_arch(); }
  TargetCaps capabilities() const override { return caps; }

  std::vector<ThreadDesc> threads() const override {
    std::vector<ThreadDesc> out;
    for (uint64_t tid : {uint64_t(1), uint64_t(2)})
      if (alive(tid)) out.push_back({tid, 1, tid == 1 ? "main" : "worker"});
    return out;
  }

  uint64_t current_thread() const override {
    return pos_ < program_.size() ? program_[pos_].tid : program_.back().tid;
  }

  Result<RegisterFile> read_registers(uint64_t tid) const override {
    if (!alive(tid)) return make_error("fake", "no such thread");
    RegisterFile regs(toy_arch());
    for (uint16_t r : {R0, R1, R2}) regs.set_u64(r, 0);
    regs.set_u64(SP, 0x7ff000 - tid * 0x1000);
    regs.set_u64(FLAGS, 0x202);
    uint64_t last_pc = 0;
    for (size_t i = 0; i < pos_; ++i) {
      if (program_[i].tid != tid) continue;
      for (auto [r, v] : program_[i].reg_writes) regs.set_u64(r, v);
      last_pc = program_[i].pc;
    }
    auto next = next_step_of(tid, pos_);
    regs.set_u64(PC, next ? program_[*next].pc : last_pc + 4);
    return regs;  // r3 and v0 stay unknown
  }

  Status read_memory(uint64_t tid, uint64_t addr, std::span<uint8_t> data, std::span<uint8_t> known) const override {
    if (!alive(tid)) return make_error("fake", "no such thread");
    for (size_t i = 0; i < data.size(); ++i) {
      auto b = byte_at(addr + i);
      known[i] = b.has_value();
      data[i] = b.value_or(0);
    }
    return {};
  }

  std::optional<MemoryRegionDesc> memory_region(uint64_t, uint64_t addr) const override {
    const MemoryRegionDesc regions[] = {{0x1000, 0x1000, true, true, false, true, "/bin/fake"},
                                        {0x8000, 0x1000, true, true, true, false, "[heap]"}};
    for (const auto& r : regions)
      if (addr >= r.start && addr - r.start < r.size) return r;
    for (const auto& r : regions)
      if (addr < r.start) return unmapped(addr, r.start - addr);
    return unmapped(addr, ~uint64_t(0) - addr + 1);
  }

  Result<StopReason> resume(const ResumeRequest& req, const InterruptCheck& interrupted) override {
    ++resume_count;
    last_request = req;
    last_breakpoint_count = req.breakpoints.size();
    last_watchpoint_count = req.watchpoints.size();
    bp_.assign(req.breakpoints.begin(), req.breakpoints.end());
    wp_.assign(req.watchpoints.begin(), req.watchpoints.end());
    last_request.breakpoints = bp_;
    last_request.watchpoints = wp_;
    bool forward = req.direction == Direction::Forward;
    if (req.action == ResumeAction::Step) return forward ? step_forward(req.tid) : step_backward(req.tid);
    return forward ? continue_forward(interrupted) : continue_backward(interrupted);
  }

  MonitorReply monitor(std::string_view command) override {
    if (command == "eid") return {"eid " + std::to_string(pos_) + "\n"};
    if (command.starts_with("seek ")) {
      size_t eid = 0;
      for (char c : command.substr(5)) {
        if (c < '0' || c > '9' || eid > program_.size()) return {"seek takes a number\n", false};
        eid = eid * 10 + size_t(c - '0');
      }
      seek(eid);
      return {"now at eid " + std::to_string(pos_) + "\n"};
    }
    return {"unknown monitor command '" + std::string(command) + "'\n", false};
  }
  // Streaming commands for the session tests: `flood` writes lines until
  // its output is refused, `spin` produces nothing until interrupted. Both
  // give up after ~10 s so a broken stub fails a test instead of hanging it.
  MonitorReply monitor(std::string_view command, const MonitorOutput& out, const InterruptCheck& interrupted) override {
    auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    if (command == "flood") {
      for (uint64_t i = 0; std::chrono::steady_clock::now() < give_up; ++i)
        if (!out("line " + std::to_string(i) + "\n")) return {};
      return {"flood ran out of time\n", false};
    }
    if (command == "spin") {
      while (std::chrono::steady_clock::now() < give_up) {
        if (interrupted && interrupted()) return {};
        std::this_thread::sleep_for(std::chrono::microseconds(200));
      }
      return {"spin ran out of time\n", false};
    }
    return monitor(command);
  }
  std::string monitor_help() const override { return "eid                show the position\nseek N             go to N\n"; }
  std::optional<std::string> exec_file() const override { return exec_path; }
  std::optional<std::string> auxv() const override { return auxv_bytes; }
  std::optional<uint64_t> load_offset() const override { return offset; }
  std::string target_description() const override {
    std::string xml = "<?xml version=\"1.0\"?>\n<!DOCTYPE target SYSTEM \"gdb-target.dtd\">\n<target>\n";
    xml += "<architecture>i386:x86-64</architecture>\n<feature name=\"org.gnu.gdb.i386.core\">\n";
    for (const auto& r : toy_arch().regs)
      xml += "<reg name=\"" + r.name + "\" bitsize=\"" + std::to_string(r.bits) + "\" type=\"" + r.type + "\"/>\n";
    return xml + "</feature>\n</target>\n";
  }

 private:
  static MemoryRegionDesc unmapped(uint64_t start, uint64_t size) {
    MemoryRegionDesc r;
    r.start = start;
    r.size = size;
    return r;
  }

  bool alive(uint64_t tid) const {
    if (next_step_of(tid, pos_)) return true;
    return pos_ == program_.size() && program_.back().tid == tid;
  }

  std::optional<size_t> next_step_of(uint64_t tid, size_t from) const {
    for (size_t i = from; i < program_.size(); ++i)
      if (program_[i].tid == tid) return i;
    return std::nullopt;
  }

  std::optional<uint8_t> byte_at(uint64_t addr) const {
    if (addr >= 0x1000 && addr < 0x1100) return uint8_t((addr & 0xff) ^ 0x90);
    if (addr < 0x8000 || addr >= 0x8100) return std::nullopt;
    std::optional<uint8_t> value;
    if (addr < 0x8080) value = 0;  // [0x8080, 0x8100) is never known
    for (size_t i = 0; i < pos_; ++i) {
      const FakeStep& s = program_[i];
      if (s.mem_write && addr >= s.mem_addr && addr - s.mem_addr < s.mem_len)
        value = uint8_t(s.mem_value >> (8 * (addr - s.mem_addr)));
    }
    return value;
  }

  // The watchpoint step i triggers, if any.
  std::optional<StopReason> watch_hit(size_t i) const {
    const FakeStep& s = program_[i];
    if (!s.mem_len) return std::nullopt;
    for (const auto& w : wp_) {
      bool kind_ok = w.kind == WatchKind::Access || (w.kind == WatchKind::Write) == s.mem_write;
      bool overlap = s.mem_addr < w.addr + w.len && w.addr < s.mem_addr + s.mem_len;
      if (kind_ok && overlap) return StopReason{StopReplyKind::Watchpoint, s.tid, std::max(w.addr, s.mem_addr), w.kind};
    }
    return std::nullopt;
  }

  std::optional<StopReason> breakpoint_at(size_t p) const {
    for (const auto& b : bp_)
      if (b.addr == program_[p].pc)
        return StopReason{b.type == BreakpointType::Software ? StopReplyKind::SwBreakpoint : StopReplyKind::HwBreakpoint,
                          program_[p].tid};
    return std::nullopt;
  }

  StopReason at_end() {
    pos_ = program_.size();
    if (exit_at_end) return StopReason{StopReplyKind::Exited, program_.back().tid, 0, WatchKind::Write, 0};
    return StopReason{StopReplyKind::HistoryEnd, program_.back().tid};
  }

  StopReason step_forward(uint64_t tid) {
    size_t p = pos_;
    if (p < program_.size() && program_[p].tid == tid) ++p;
    auto next = next_step_of(tid, p);
    if (!next) return at_end();
    pos_ = *next;
    return StopReason{StopReplyKind::StepDone, tid};
  }

  StopReason step_backward(uint64_t tid) {
    for (size_t q = pos_; q-- > 0;) {
      if (program_[q].tid == tid) {
        pos_ = q;
        return StopReason{StopReplyKind::StepDone, tid};
      }
    }
    pos_ = 0;
    return StopReason{StopReplyKind::HistoryBegin, program_[0].tid};
  }

  StopReason continue_forward(const InterruptCheck& interrupted) {
    if (spin_forever) {
      auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (std::chrono::steady_clock::now() < give_up) {
        if (interrupted && interrupted()) return StopReason{StopReplyKind::Interrupted, current_thread()};
        std::this_thread::sleep_for(std::chrono::microseconds(200));
      }
      return at_end();
    }
    for (size_t p = pos_; p < program_.size();) {
      if (interrupted && interrupted()) {
        pos_ = p;
        return StopReason{StopReplyKind::Interrupted, current_thread()};
      }
      ++p;  // the step at p-1 runs
      if (auto w = watch_hit(p - 1)) {
        pos_ = p;
        return *w;
      }
      if (p == program_.size()) break;
      if (auto b = breakpoint_at(p)) {
        pos_ = p;
        return *b;
      }
    }
    return at_end();
  }

  StopReason continue_backward(const InterruptCheck& interrupted) {
    for (size_t q = pos_; q-- > 0;) {
      if (interrupted && interrupted()) {
        pos_ = q + 1;
        return StopReason{StopReplyKind::Interrupted, current_thread()};
      }
      pos_ = q;
      if (auto w = watch_hit(q)) return *w;
      if (auto b = breakpoint_at(q)) return *b;
    }
    pos_ = 0;
    return StopReason{StopReplyKind::HistoryBegin, program_[0].tid};
  }

  std::vector<FakeStep> program_;
  size_t pos_ = 0;
  std::vector<Breakpoint> bp_;
  std::vector<Watchpoint> wp_;
};

}  // namespace ttd::gdb::testing
