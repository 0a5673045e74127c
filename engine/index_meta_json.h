// The index metadata as JSON (stored in the index directory).
#pragma once
#include <string>

#include "engine/index_file.h"

namespace ttd {
std::string meta_to_json(const IndexMeta& m);
// False when the JSON is malformed or misses fields.
bool meta_from_json(const std::string& text, IndexMeta& m);
}  // namespace ttd
