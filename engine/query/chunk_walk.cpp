#include "engine/query/chunk_walk.h"

namespace ttd::query {

Error interrupted_error() { return make_error("query", "interrupted"); }

}  // namespace ttd::query
