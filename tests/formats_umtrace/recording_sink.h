// A TraceSink that keeps every step, attribute and effect in order, and
// applies the effects to a ttd::MachineState (registers per thread, memory
// per process), so tests can check both what a reader said and the state
// it implies.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "formats/common/trace_sink.h"
#include "state/machine_state.h"

namespace ttd::test {

struct RecordedStep {
  fmt::StepInfo info;
  std::map<std::string, fmt::AttrValue> attrs;
  struct Effect {
    enum Kind { Reg, RegUnknown, MemWrite, MemRead, MemUnknown, Map, Unmap, ThreadBegin, ThreadEnd } kind;
    uint64_t tid_or_pid = 0, addr = 0, size = 0;
    uint16_t reg = 0;
    std::vector<uint8_t> bytes;
  };
  std::vector<Effect> effects;  // after step()
};

class RecordingSink : public fmt::TraceSink {
 public:
  fmt::TraceInfo info;
  std::vector<RecordedStep> steps;
  std::vector<RecordedStep::Effect> initial;  // before the first step
  MachineState state;
  bool ended = false;

  void begin(const fmt::TraceInfo& i) override {
    info = i;
    state = MachineState(arch_desc(i.arch));
  }
  void step(const fmt::StepInfo& s) override {
    state.thread(s.tid, s.pid).regs.set_u64(state.arch().pc_index, s.pc);
    steps.push_back(RecordedStep{s, {}, {}});
  }
  void attr(std::string_view key, const fmt::AttrValue& v) override {
    if (!steps.empty()) steps.back().attrs[std::string(key)] = v;
  }
  void reg(uint64_t tid, uint16_t r, std::span<const uint8_t> v) override {
    state.thread(tid, pid_of(tid)).regs.set_bytes(r, v);
    add({RecordedStep::Effect::Reg, tid, 0, v.size(), r, {v.begin(), v.end()}});
  }
  void reg_unknown(uint64_t tid, uint16_t r) override {
    state.thread(tid, pid_of(tid)).regs.invalidate(r);
    add({RecordedStep::Effect::RegUnknown, tid, 0, 0, r, {}});
  }
  void mem_write(uint64_t pid, uint64_t addr, std::span<const uint8_t> b) override {
    state.process(pid).memory.write(addr, b.data(), b.size());
    add({RecordedStep::Effect::MemWrite, pid, addr, b.size(), 0, {b.begin(), b.end()}});
  }
  void mem_read(uint64_t pid, uint64_t addr, uint32_t size, std::span<const uint8_t> b) override {
    if (!b.empty()) state.process(pid).memory.write(addr, b.data(), b.size());
    add({RecordedStep::Effect::MemRead, pid, addr, size, 0, {b.begin(), b.end()}});
  }
  void mem_unknown(uint64_t pid, uint64_t addr, uint64_t size) override {
    state.process(pid).memory.invalidate(addr, size);
    add({RecordedStep::Effect::MemUnknown, pid, addr, size, 0, {}});
  }
  void mem_map(uint64_t pid, uint64_t addr, uint64_t size, uint8_t prot, std::string_view name) override {
    state.process(pid).regions.map(MemoryRegion{addr, size, prot, std::string(name)});
    state.process(pid).memory.fill(addr, size, 0);
    add({RecordedStep::Effect::Map, pid, addr, size, 0, {}});
  }
  void mem_unmap(uint64_t pid, uint64_t addr, uint64_t size) override {
    state.process(pid).regions.unmap(addr, size);
    state.process(pid).memory.invalidate(addr, size);
    add({RecordedStep::Effect::Unmap, pid, addr, size, 0, {}});
  }
  void thread_begin(uint64_t tid, uint64_t pid) override {
    pids_[tid] = pid;
    state.thread(tid, pid);
    add({RecordedStep::Effect::ThreadBegin, tid, 0, pid, 0, {}});
  }
  void thread_end(uint64_t tid) override { add({RecordedStep::Effect::ThreadEnd, tid, 0, 0, 0, {}}); }
  void end() override { ended = true; }

  uint64_t pid_of(uint64_t tid) const {
    auto it = pids_.find(tid);
    return it == pids_.end() ? 1 : it->second;
  }
  // Register value of a thread now, or nullopt if unknown.
  std::optional<uint64_t> reg_now(uint64_t tid, const char* name) const {
    const ThreadState* t = state.find_thread(tid);
    if (!t) return std::nullopt;
    return t->regs.get_u64(*state.arch().find(name));
  }

 private:
  void add(RecordedStep::Effect e) { (steps.empty() ? initial : steps.back().effects).push_back(std::move(e)); }
  std::map<uint64_t, uint64_t> pids_;
};

}  // namespace ttd::test
