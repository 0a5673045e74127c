// C-like expressions over the trace's state: numbers and character
// constants, variables (locals of the selected frame, then globals),
// registers ($rax or rax), unary * & - ~ !, member access (. and ->),
// indexing, casts to built-in types, + - * / % with pointer arithmetic,
// << >>, comparisons (== != < <= > >=, an int 0 or 1), & ^ |, && and ||
// (short-circuit: the side not needed is parsed, not evaluated), and
// [addr] for the pointer-sized word at addr. Assignment is refused: a
// trace cannot be changed. Names resolve through an EvalScope, so the same evaluator
// serves every frame and the variables view.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dap/model/typed_value.h"
#include "state/error.h"

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

// Limits that keep hostile input from exhausting the stack or the CPU:
// longer or deeper expressions are refused with an error, not evaluated.
constexpr size_t kMaxExpressionChars = 4096;
constexpr size_t kMaxExpressionDepth = 256;

// Integer arithmetic is 64-bit two's complement and wraps (INT64_MIN / -1
// is INT64_MIN, INT64_MIN % -1 is 0); division or remainder by zero is an
// error. Never traps, never recurses past kMaxExpressionDepth.
Result<TypedValue> evaluate_expression(std::string_view text, EvalScope& scope);
// Whether text is an expression evaluate_expression can parse, without
// evaluating it (names need not exist): a breakpoint condition is checked
// when it is set, before any scope it will be evaluated in exists.
Status check_expression_syntax(std::string_view text);

// The value's bytes (read from memory when it lives there), at most max.
void load_bytes(const TypedValue& v, EvalScope& scope, std::vector<uint8_t>& bytes, std::vector<uint8_t>& known,
                size_t max = 1 << 16);
Result<TypedValue> member_of(const TypedValue& v, const std::string& name, EvalScope& scope);
Result<TypedValue> element_of(const TypedValue& v, int64_t index, EvalScope& scope);
Result<TypedValue> dereference(const TypedValue& v, EvalScope& scope);

}  // namespace ttd::dap
