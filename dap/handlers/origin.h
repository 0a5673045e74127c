// The origin requests (origin.cpp): ttdOrigin, and the `evaluate` form.
#pragma once
#include <string>

#include "dap/dispatcher.h"

namespace ttd::dap {

// Whether an evaluate request asks for an origin: context "origin", or an
// expression "origin EXPR" typed in the debug console.
bool is_origin_evaluate(const std::string& expression, const std::string& context);
// The origin tree as the evaluate result's text.
Result<json> origin_evaluate(RequestContext& c, const std::string& expression, const std::string& context);

}  // namespace ttd::dap
