// variables.
#include "dap/handlers/handler_args.h"

namespace ttd::dap {

namespace {

json variable_json(SessionState& s, const VariableEntry& v) {
  json j = {{"name", v.name}, {"value", v.value}, {"variablesReference", s.variable_ref(v.children_key)}};
  if (!v.type.empty()) j["type"] = v.type;
  if (!v.evaluate_name.empty()) j["evaluateName"] = v.evaluate_name;
  if (v.memory_reference) j["memoryReference"] = hex_address(*v.memory_reference);
  return j;
}

Result<json> variables(RequestContext& c) {
  auto ref = req_int(c.args, "variablesReference");
  if (!ref) return ref.error();
  auto start = opt_int(c.args, "start");
  auto count = opt_int(c.args, "count");
  if (!start) return start.error();
  if (!count) return count.error();
  const std::string* key = c.state.variables.find(*ref);
  if (!key) return not_found("variablesReference " + std::to_string(*ref) + " is not valid (the position changed since it was handed out)");
  auto list = c.state.debuggee->variables(*key);
  if (!list) return failed(list.error().to_string());
  int64_t first = std::max<int64_t>(0, start->value_or(0));
  int64_t n = count->value_or(0) > 0 ? **count : int64_t(list->size());
  json out = json::array();
  for (int64_t i = first; i < int64_t(list->size()) && i < first + n; ++i) out.push_back(variable_json(c.state, (*list)[size_t(i)]));
  return json{{"variables", out}};
}

}  // namespace

void register_variable_handlers(Dispatcher& d) { d.add("variables", Needs::Launched, variables); }

}  // namespace ttd::dap
