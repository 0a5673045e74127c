// How a typed value appears in the variables pane and in evaluate results:
// its one-line text, its type, where it lives, and the child expressions
// (members, elements, the pointee) that expand it. Children are named by
// expressions so any of them can be re-evaluated, watched or hovered.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "dap/debuggee.h"
#include "dap/model/expression.h"

namespace ttd::dap {

// One line of text for the value ("42", "0x4c72f0 \"apples\"", "{...}").
std::string value_text(const TypedValue& v, EvalScope& scope);

// A variables-pane entry; children_key = key_prefix + evaluate_name when
// the value can be expanded.
VariableEntry value_entry(const std::string& name, const TypedValue& v, const std::string& evaluate_name,
                          const std::string& key_prefix, EvalScope& scope);

// (display name, expression) of each child of `expr`, whose value is v.
std::vector<std::pair<std::string, std::string>> child_expressions(const TypedValue& v, const std::string& expr);

}  // namespace ttd::dap
