// Wiring of the pieces: file -> header -> producer -> visitor. These are the
// entry points for everything that reads XRay logs (the TraceReader, `ttd
// calls`, dump tools, tests); each streams the file once.
#pragma once
#include <cstdint>
#include <functional>
#include <string>

#include "formats/xray/fdr_record.h"
#include "formats/xray/fdr_survey.h"
#include "formats/xray/xray_event.h"

namespace ttd::fmt::xray {

// Called with (bytes consumed, file size) now and then; false cancels.
using ByteProgress = std::function<bool(uint64_t done, uint64_t total)>;

// Streams the raw records of an FDR log to `v` (basic logs have no records
// of this kind: an error says so). `report`, if given, receives what a
// survey_xray of the records read finds (header, counts, buffers,
// recoveries), even when reading stops at an error.
Status read_fdr_records(const std::string& path, RecordVisitor& v, XrayReport* report = nullptr,
                        const ByteProgress& progress = {});

// Streams the expanded events of an FDR or basic log to `out`, in file
// order, ending with the held-back last entry.
Status read_xray_events(const std::string& path, EventConsumer& out, XrayReport* report = nullptr,
                        const ByteProgress& progress = {});

}  // namespace ttd::fmt::xray
