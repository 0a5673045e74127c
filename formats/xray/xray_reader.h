// The TraceReader for XRay logs: one pass over the log that counts what
// `ttd info` shows (the survey) while it emits the steps.
#pragma once
#include <memory>
#include <optional>
#include <string>

#include "formats/common/trace_reader.h"
#include "formats/xray/fdr_survey.h"
#include "formats/xray/instr_map.h"

namespace ttd::fmt::xray {

class XrayTraceReader : public TraceReader {
 public:
  // Checks the header and loads the instrumentation map named by
  // opts.instr_map_binary, if any.
  static Result<std::unique_ptr<XrayTraceReader>> open(const std::string& path, const ReaderOptions& opts);

  Status read(TraceSink& sink, const Progress& progress) override;

  // What the last read() found (header, counts, recoveries, error).
  const XrayReport& report() const { return report_; }
  // What `ttd info` shows of the log (runs a survey pass); read() hands
  // the same to the sink's revise().
  TraceInfo trace_info();

 private:
  XrayTraceReader() = default;
  TraceInfo info_from(const XrayReport& report) const;

  std::string path_;
  FileHeader header_;
  std::optional<InstrMap> map_;
  XrayReport report_;
};

}  // namespace ttd::fmt::xray
