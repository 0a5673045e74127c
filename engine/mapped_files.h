// Which files a trace maps, and where: what the symbolizer needs to find
// its modules (engine/symbolizer.h). Found by sampling up to
// kMappedFileSamples keyframes evenly spaced over the trace (all of a
// short trace's): a file mapped for less than about 1/64 of the run may be
// missed (--symbols FILE@ADDR names it).
//
// The index builder samples once, when the keyframes are written, and
// keeps the table in the index metadata (IndexMeta::mapped_files,
// optional); a reader uses that table and samples only an index without
// one (built before it existed, or whose builder could not read a sample
// back). Both sample the same chunks with the same code, so both give the
// same table, hence the same modules and symbols.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "state/arch.h"

namespace ttd {

class IndexFile;

// Absolute path -> the lowest start of a mapping of it in the sampled keyframes.
using MappedFiles = std::map<std::string, uint64_t>;

constexpr size_t kMappedFileSamples = 64;

// The chunks sampled among chunk_count, ascending.
std::vector<size_t> mapped_file_sample_chunks(size_t chunk_count);

// Adds the keyframe's mappings whose name is an absolute path (a decoded
// keyframe blob); false if it does not parse (then nothing is added).
bool add_keyframe_mapped_files(const uint8_t* keyframe, size_t size, const ArchDesc& arch, MappedFiles& out);

// Samples the index's keyframes; a keyframe that cannot be read is skipped.
MappedFiles sample_mapped_files(const IndexFile& index, ArchId arch);

// The index metadata's table when it has one, else sample_mapped_files().
MappedFiles mapped_files_of(const IndexFile& index, ArchId arch);

}  // namespace ttd
