// Where an expression's names and memory come from: the selected frame's
// variables and registers, and the trace's memory at the current
// position. One interface, so the same evaluator serves every frame and
// the variables view.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "dap/model/typed_value.h"

namespace ttd::dap {

class EvalScope {
 public:
  virtual ~EvalScope() = default;
  virtual std::optional<TypedValue> variable(const std::string& name) = 0;
  virtual std::optional<TypedValue> reg(const std::string& name) = 0;
  // Reads target memory; known[i] = 1 when byte i is known.
  virtual void read(uint64_t addr, uint8_t* dst, uint8_t* known, size_t len) = 0;
  virtual uint8_t ptr_size() const = 0;
};

}  // namespace ttd::dap
