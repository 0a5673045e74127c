// The index builder's table of mapped files (engine/mapped_files.h), taken
// once at the end of a build from the keyframes it has just written, so
// readers need not sample them at every start-up.
#pragma once
#include <cstdio>
#include <optional>
#include <vector>

#include "engine/index_tables.h"
#include "engine/mapped_files.h"

namespace ttd {

// `out` is the stream the data region was written through and `fd` a
// readable descriptor of the same file; `chunks` carry their keyframes'
// final BlobRefs. Reads the sampled keyframes back as sample_mapped_files()
// would read them from the finished index. nullopt when one of them cannot
// be read back or parsed, or a name is not valid UTF-8 (the metadata is
// JSON): the index then carries no table and readers sample as before.
// Never fails the build.
std::optional<MappedFiles> mapped_files_at_build(std::FILE* out, int fd, const std::vector<ChunkBlobs>& chunks,
                                                 ArchId arch);

}  // namespace ttd
