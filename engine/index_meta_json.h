// The index metadata as JSON (stored in the index directory).
#pragma once
#include <cstdint>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>

#include "engine/index_file.h"

namespace ttd {
std::string meta_to_json(const IndexMeta& m);
// False when the JSON is malformed or misses fields.
bool meta_from_json(const std::string& text, IndexMeta& m);
// The optional "mapped_files" key (IndexMeta::mapped_files): nullopt when
// it is absent or malformed (not [[absolute path, unsigned], ...], or a
// path twice). A malformed table is not an error: the index stays usable
// and the symbolizer samples the keyframes instead.
std::optional<std::map<std::string, uint64_t>> mapped_files_from_json(const nlohmann::json& j);
}  // namespace ttd
