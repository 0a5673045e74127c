// Names as seen from one frame of one thread at the current position: the
// frame's locals and parameters (DWARF locations evaluated with that
// frame's registers and CFA), the program's globals, and the registers
// (all of them in the innermost frame; the ones the unwinder recovered in
// callers). Implements EvalScope for the expression evaluator.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "dap/model/engine_debuggee.h"
#include "dap/model/expression.h"

namespace ttd::dap {

struct NamedValue {
  std::string name;
  std::optional<TypedValue> value;  // nullopt: see `problem`
  std::string problem;              // "optimized out", "unknown at this position", ...
  std::string type_name;
};

class FrameScope : public EvalScope {
 public:
  FrameScope(EngineDebuggee& d, uint64_t tid, size_t index, FrameData frame);

  std::optional<TypedValue> variable(const std::string& name) override;
  std::optional<TypedValue> reg(const std::string& name) override;
  void read(uint64_t addr, uint8_t* dst, uint8_t* known, size_t len) override;
  uint8_t ptr_size() const override;

  std::vector<NamedValue> locals();
  std::vector<NamedValue> globals();
  // Registers of one group ("general", "float", ...): (index, bytes, known).
  struct RegisterValue {
    uint16_t index = 0;
    std::vector<uint8_t> bytes;
    bool known = false;
  };
  std::vector<RegisterValue> registers(const std::string& group);
  uint64_t tid() const { return tid_; }
  size_t index() const { return index_; }
  const FrameData& frame() const { return frame_; }

 private:
  NamedValue resolve(const dbg::VariableDesc& v);
  std::optional<uint64_t> dwarf_reg(int regno) const;

  EngineDebuggee& d_;
  uint64_t tid_;
  size_t index_;
  FrameData frame_;
};

}  // namespace ttd::dap
