// A TraceSink that applies every effect to a ttd::MachineState and keeps a
// copy of the state at each EID (the state before that step runs), so tests
// can compare a reader's reconstruction with what an emulator had. Memory
// read values count as known memory, as the engine treats them.
#pragma once
#include <string>
#include <vector>

#include "formats/common/trace_sink.h"
#include "state/machine_state.h"

namespace ttd::test {

class StateRecordingSink : public fmt::TraceSink {
 public:
  fmt::TraceInfo info;
  std::vector<fmt::StepInfo> steps;
  std::vector<MachineState> states;  // states[n] = state at EID n
  MachineState current;
  struct Access {
    uint64_t eid;  // the step that made it
    bool write;
    uint64_t addr;
    uint32_t size;
    bool has_value;
  };
  std::vector<Access> accesses;
  bool ended = false;

  void begin(const fmt::TraceInfo& i) override {
    info = i;
    current = MachineState(arch_desc(i.arch));
  }
  void revise(const fmt::TraceInfo& i) override { info.properties = i.properties; }
  void step(const fmt::StepInfo& s) override {
    ThreadState& t = current.thread(s.tid, s.pid);
    t.regs.set_u64(current.arch().pc_index, s.pc);
    steps.push_back(s);
    states.push_back(current);
  }
  void reg(uint64_t tid, uint16_t reg, std::span<const uint8_t> value) override {
    current.thread(tid, 1).regs.set_bytes(reg, value);
  }
  void mem_write(uint64_t pid, uint64_t addr, std::span<const uint8_t> bytes) override {
    current.process(pid).memory.write(addr, bytes.data(), bytes.size());
    if (!steps.empty()) accesses.push_back({steps.size() - 1, true, addr, uint32_t(bytes.size()), true});
  }
  void mem_read(uint64_t pid, uint64_t addr, uint32_t size, std::span<const uint8_t> bytes) override {
    if (!bytes.empty()) current.process(pid).memory.write(addr, bytes.data(), bytes.size());
    if (!steps.empty()) accesses.push_back({steps.size() - 1, false, addr, size, !bytes.empty()});
  }
  void end() override { ended = true; }
};

}  // namespace ttd::test
