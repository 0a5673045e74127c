#include "formats/xray/xray_reader.h"

#include "formats/xray/step_emitter.h"
#include "formats/xray/xray_pipeline.h"

namespace ttd::fmt::xray {

Result<std::unique_ptr<XrayTraceReader>> XrayTraceReader::open(const std::string& path, const ReaderOptions& opts) {
  auto in = open_xray_file(path, 4096);
  if (!in) return in.error();
  auto h = read_file_header(*in);
  if (!h) return h.error();
  std::unique_ptr<XrayTraceReader> r(new XrayTraceReader());
  r->path_ = path;
  r->header_ = *h;
  if (!opts.instr_map_binary.empty()) {
    auto m = InstrMap::load(opts.instr_map_binary);
    if (!m) return m.error();
    r->map_ = std::move(*m);
  }
  return r;
}

TraceInfo XrayTraceReader::trace_info() {
  report_ = survey_xray(path_);
  return info_from(report_);
}

TraceInfo XrayTraceReader::info_from(const XrayReport& report) const {
  TraceInfo info;
  info.format = header_.format_name();
  info.arch = ArchId::X86_64;  // the log does not say; XRay's main platform
  if (map_ && map_->arch()) info.arch = *map_->arch();
  if (map_) info.exec_path = map_->path();
  info.caps.registers = false;
  info.caps.memory_values = false;
  info.caps.memory_accesses = false;
  info.caps.code_bytes = false;
  info.caps.note =
      "function-level trace: call stacks only (function entries/exits and custom/typed events with TSC "
      "timestamps); no registers, no memory";
  info.properties = report_properties(report);
  if (map_) {
    info.properties.emplace_back("xray.instr_map", map_->path());
    info.properties.emplace_back("xray.instr_map.functions", std::to_string(map_->function_count()));
  } else {
    info.properties.emplace_back("xray.pc", "function id (no instrumentation map loaded)");
  }
  return info;
}

// The counts come from the reading itself (a survey first would read the
// log twice): begin() is told the header's facts, revise() the rest.
Status XrayTraceReader::read(TraceSink& sink, const Progress& progress) {
  report_ = XrayReport{};
  report_.header = header_;
  sink.begin(info_from(report_));
  StepEmitter emitter(sink, map_ ? &*map_ : nullptr);
  Status s = read_xray_events(path_, emitter, &report_, progress);
  if (!s && report_.error.empty()) report_.error = s.error().to_string();
  sink.revise(info_from(report_));  // with the error, if there was one
  if (!s) return s;
  sink.end();
  return {};
}

}  // namespace ttd::fmt::xray
