// The parallel parse of an index build (docs/design.md, "Parallel
// parse"): a trace that its format can cut into segments
// (formats/common/trace_segments.h) is parsed and encoded by several
// threads. The calling thread reads the head into the builder and takes
// the chunks in trace order (IndexBuilder::adopt_chunk), which hands them
// on to the replay thread and the blob writer as a two-thread build does;
// one thread finds the segments (the format's cheap scan), `workers`
// threads parse and encode them (SegmentEncoder). Memory is bounded: the
// scan runs at most a few segments ahead of the chunks taken.
#pragma once
#include "engine/index_builder.h"
#include "formats/common/trace_reader.h"

namespace ttd {

// Chunks per segment: a segment's lead-in (two steps) and hand-offs are
// then a small part of its work.
constexpr uint32_t kSegmentChunks = 8;

// Parse threads for an index build: TTD_BUILD_PARSE_THREADS if set (0:
// no parallel parse), otherwise 0 for now (parallel_index_build.cpp says
// why): the parallel parse is opt-in.
unsigned parse_workers();

// Reads the trace into `builder` (head, then segments). An Error means the
// build could not be made this way (a trace the segments do not cover, or
// a malformed one); the builder is then unusable and the caller builds in
// order with a new one, which also reports any real error in the file.
Status build_from_segments(fmt::SegmentedRead& segmented, IndexBuilder& builder, unsigned workers,
                           const fmt::Progress& progress);

}  // namespace ttd
