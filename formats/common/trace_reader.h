// A format reader: recognises its files and streams them into a TraceSink.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "formats/common/trace_segments.h"
#include "formats/common/trace_sink.h"
#include "state/error.h"

namespace ttd::fmt {

// Called now and then with (bytes consumed, total bytes); returning false
// cancels the read (which then fails with an error saying so).
using Progress = std::function<bool(uint64_t done, uint64_t total)>;

class TraceReader {
 public:
  virtual ~TraceReader() = default;
  // Streams the whole trace into sink. Never loads the whole file into
  // memory. Bad input ends the read with an Error naming the file and the
  // byte offset (or line); everything sent to the sink before is valid.
  virtual Status read(TraceSink& sink, const Progress& progress) = 0;
  // The trace in segments of `segment_steps` steps (trace_segments.h), or
  // null if the format cannot cut this trace. Used instead of read().
  virtual std::unique_ptr<SegmentedRead> segments(uint64_t segment_steps) { return nullptr; }
};

struct ReaderOptions {
  std::string instr_map_binary;  // XRay: ELF with xray_instr_map
  // Steps a trace may expand to where a format lets few bytes declare many
  // (formats/common/step_limit.h); 0 = the automatic limit from the file size.
  uint64_t max_steps = 0;
  // UCIR: recover mappings usercorn trimmed from their backing files
  // (regular files only, bytes checked against the trace; ucir.md).
  bool backing_files = true;
};

struct FormatEntry {
  std::string name;         // "ucir"
  std::string description;  // one line
  // True if the file (or directory) at path looks like this format; `head`
  // holds up to the first 4096 bytes of a regular file.
  std::function<bool(const std::string& path, std::span<const uint8_t> head)> sniff;
  std::function<Result<std::unique_ptr<TraceReader>>(const std::string& path, const ReaderOptions&)> open;
};

// Every format the product reads, in probing order.
const std::vector<FormatEntry>& all_formats();
// Opens path with the first format whose sniff accepts it; `format` forces one.
Result<std::unique_ptr<TraceReader>> open_trace(const std::string& path, const ReaderOptions& opts,
                                                 const std::string& format = "");

}  // namespace ttd::fmt
