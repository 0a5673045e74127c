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
#include <cstddef>
#include <string_view>

#include "dap/model/eval_scope.h"
#include "dap/model/typed_value.h"
#include "dap/model/value_access.h"  // load_bytes, member_of, ...: callers of the evaluator use them too
#include "state/error.h"

namespace ttd::dap {

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

}  // namespace ttd::dap
