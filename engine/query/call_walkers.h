// The two ways calls are found (internal to the call query): pairing call
// and return instructions, and pairing XRay's function events.
#pragma once
#include <memory>

#include "engine/query/calls.h"

namespace ttd::query {

std::unique_ptr<CallWalker> make_instruction_call_walker(std::shared_ptr<const Trace> t, CallQuery q);
std::unique_ptr<CallWalker> make_xray_call_walker(std::shared_ptr<const Trace> t, CallQuery q);

}  // namespace ttd::query
