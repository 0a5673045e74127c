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
#include "engine/symbolizer.h"

namespace ttd::query {

// With a symbolizer, a pc also gets "sym" ("push+0x1b") and "src"
// ("/src/list.c:42") where they are known (a call: of its function's
// entry); the text form appends "push+0x1b list.c:42" after the pc.
std::string to_json(const MemoryAccess& a, const Symbolizer* symbols = nullptr);
std::string to_json(const Trace& t, const RegisterWrite& w, const Symbolizer* symbols = nullptr);
std::string to_json(const Execution& e, const Symbolizer* symbols = nullptr);
std::string to_json(const Call& c, const Symbolizer* symbols = nullptr);
std::string to_json(const ValueMatch& m);
std::string to_json(const Appearance& a);

// One line of text for people.
std::string to_text(const MemoryAccess& a, const Symbolizer* symbols = nullptr);
std::string to_text(const Trace& t, const RegisterWrite& w, const Symbolizer* symbols = nullptr);
std::string to_text(const Execution& e, const Symbolizer* symbols = nullptr);
std::string to_text(const Call& c, const Symbolizer* symbols = nullptr);  // indented by depth

// "pc 0x401136 <push+0x1b list.c:42>" style suffix for a pc: " push+0x1b
// list.c:42", or "" when nothing is known (or no symbolizer).
std::string pc_symbol_text(uint64_t pc, const Symbolizer* symbols);

// The register value as text: 0x-hex number for registers up to 64 bits,
// raw target-order bytes otherwise; "unknown" / null when unknown.
std::string register_value_text(const Trace& t, const RegisterWrite& w);

}  // namespace ttd::query
