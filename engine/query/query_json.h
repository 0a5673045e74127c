// One JSON object per hit (JSON Lines), the same from the ttd CLI and the
// stub's monitor commands. Addresses and values are 0x-hex strings (64-bit
// values do not survive JSON numbers in every client); unknown is null.
// Every hit carries "next", the token that resumes its query after it.
#pragma once
#include <string>

#include "engine/query/calls.h"
#include "engine/query/executions.h"
#include "engine/query/memory_history.h"
#include "engine/query/register_history.h"
#include "engine/query/value_search.h"

namespace ttd::query {

std::string to_json(const MemoryAccess& a);
std::string to_json(const Trace& t, const RegisterWrite& w);
std::string to_json(const Execution& e);
std::string to_json(const Call& c);
std::string to_json(const ValueMatch& m);
std::string to_json(const Appearance& a);

// One line of text for people.
std::string to_text(const MemoryAccess& a);
std::string to_text(const Trace& t, const RegisterWrite& w);
std::string to_text(const Execution& e);
std::string to_text(const Call& c);  // indented by depth

// The register value as text: 0x-hex number for registers up to 64 bits,
// raw target-order bytes otherwise; "unknown" / null when unknown.
std::string register_value_text(const Trace& t, const RegisterWrite& w);

}  // namespace ttd::query
