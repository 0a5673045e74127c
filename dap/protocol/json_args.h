// Typed access to request arguments. Every accessor checks the JSON type
// and reports a wrong or missing field as an Error naming it, so handlers
// never throw on a malformed request.
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "state/error.h"

namespace ttd::dap {

using json = nlohmann::json;

Result<std::string> req_string(const json& obj, const char* key);
Result<int64_t> req_int(const json& obj, const char* key);
// Absent (or null) -> nullopt; present with the wrong type -> Error.
Result<std::optional<std::string>> opt_string(const json& obj, const char* key);
Result<std::optional<int64_t>> opt_int(const json& obj, const char* key);
Result<bool> opt_bool(const json& obj, const char* key, bool fallback);
// Absent -> empty array; present but not an array -> Error.
Result<json> opt_array(const json& obj, const char* key);
// Absent -> nullptr.
Result<const json*> opt_object(const json& obj, const char* key);

// Parses "0x1f", "31" or a DAP memoryReference into an address.
std::optional<uint64_t> parse_address(const std::string& s);
std::string hex_address(uint64_t v);

}  // namespace ttd::dap
