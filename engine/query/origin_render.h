// The origin answer (origin.h) as an indented text tree for people and as
// one JSON document for programs (schema in docs/queries.md, "origin").
// Every front end (ttd origin, monitor origin, Python, DAP) prints these.
#pragma once
#include <string>

#include "engine/query/origin.h"
#include "engine/query/origin_symbols.h"

namespace ttd::query {

// A value as text: a 0x-hex number up to 8 bytes (target byte order),
// raw bytes beyond; "??" when unknown.
std::string origin_value_text(const Trace& t, const std::optional<std::vector<uint8_t>>& v);

std::string origin_to_text(const Trace& t, const OriginGraph& g, const PcSymbolizer& sym = {});
std::string origin_to_json(const Trace& t, const OriginGraph& g, const PcSymbolizer& sym = {});

}  // namespace ttd::query
