// A TraceSink that keeps everything a reader sends, step by step, and the
// register values each step starts with (for checking FULL's registers at
// every EID).
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "formats/common/trace_sink.h"

namespace ttd::test {

struct Effect {
  enum Kind { Reg, RegUnknown, MemWrite, MemRead, MemUnknown } kind;
  uint16_t reg = 0;
  uint64_t addr = 0, size = 0;
  std::vector<uint8_t> bytes;  // MemRead: empty when the value is unknown
  bool writes() const { return kind == MemWrite || kind == MemUnknown; }
};

using RegisterValues = std::vector<std::optional<std::vector<uint8_t>>>;

struct RecordedStep {
  fmt::StepInfo info;
  std::map<std::string, fmt::AttrValue> attrs;
  std::vector<Effect> effects;  // the step's own effects (sent after step())
  RegisterValues regs_before;
};

class RecordingSink : public fmt::TraceSink {
 public:
  fmt::TraceInfo info;
  bool began = false, ended = false;
  std::vector<Effect> initial;  // effects before the first step
  std::vector<RecordedStep> steps;
  RegisterValues regs;  // the live register file

  void begin(const fmt::TraceInfo& i) override {
    info = i;
    began = true;
    regs.assign(arch_desc(i.arch).regs.size(), std::nullopt);
  }
  void step(const fmt::StepInfo& s) override {
    steps.push_back(RecordedStep{s, {}, {}, regs});
  }
  void attr(std::string_view key, const fmt::AttrValue& v) override {
    if (!steps.empty()) steps.back().attrs[std::string(key)] = v;
  }
  void reg(uint64_t, uint16_t r, std::span<const uint8_t> value) override {
    regs.at(r) = std::vector<uint8_t>(value.begin(), value.end());
    add(Effect{Effect::Reg, r, 0, value.size(), {value.begin(), value.end()}});
  }
  void reg_unknown(uint64_t, uint16_t r) override {
    regs.at(r).reset();
    add(Effect{Effect::RegUnknown, r, 0, 0, {}});
  }
  void mem_write(uint64_t, uint64_t addr, std::span<const uint8_t> bytes) override {
    add(Effect{Effect::MemWrite, 0, addr, bytes.size(), {bytes.begin(), bytes.end()}});
  }
  void mem_read(uint64_t, uint64_t addr, uint32_t size, std::span<const uint8_t> bytes) override {
    add(Effect{Effect::MemRead, 0, addr, size, {bytes.begin(), bytes.end()}});
  }
  void mem_unknown(uint64_t, uint64_t addr, uint64_t size) override {
    add(Effect{Effect::MemUnknown, 0, addr, size, {}});
  }
  void end() override { ended = true; }

 private:
  void add(Effect e) { (steps.empty() ? initial : steps.back().effects).push_back(std::move(e)); }
};

}  // namespace ttd::test
