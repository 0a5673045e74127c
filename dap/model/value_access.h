// Values read through an EvalScope: their bytes, members, elements and
// pointees, and their integer value. Shared by the expression evaluator
// (dap/model/expression.cpp) and the variables view (value_view.cpp).
// Never trusts the debug info: a hostile member offset, bit field or
// index gives an error or fewer bytes, never a read out of bounds.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "dap/model/eval_scope.h"
#include "dap/model/typed_value.h"
#include "state/error.h"

namespace ttd::dap {

// The value's bytes (read from memory when it lives there), at most max.
void load_bytes(const TypedValue& v, EvalScope& scope, std::vector<uint8_t>& bytes, std::vector<uint8_t>& known,
                size_t max = 1 << 16);
Result<TypedValue> member_of(const TypedValue& v, const std::string& name, EvalScope& scope);
Result<TypedValue> element_of(const TypedValue& v, int64_t index, EvalScope& scope);
Result<TypedValue> dereference(const TypedValue& v, EvalScope& scope);
// The value as expression arithmetic takes it: a 64-bit integer (an array
// in memory decays to its address). Floats, structs and unknown bytes are
// errors.
Result<int64_t> to_int(const TypedValue& v, EvalScope& scope);

// An error of the expression evaluator or of the functions above.
inline Error eval_error(std::string msg) { return make_error("expression", std::move(msg)); }

// Integer arithmetic wraps like the target's two's-complement registers:
// it is done on uint64_t, where overflow is defined, never on int64_t.
inline uint64_t wrap_mul(int64_t a, int64_t b) { return uint64_t(a) * uint64_t(b); }

}  // namespace ttd::dap
