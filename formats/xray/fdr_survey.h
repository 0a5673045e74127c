// A cheap first pass over a log that learns what `ttd info` should say
// before any step is emitted (TraceInfo is handed over at begin()): buffer,
// thread and record counts, and above all the regions the producer had to
// skip. It is a visitor over the same record stream the expander reads, so
// it sees exactly what the second pass will see.
#pragma once
#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "formats/xray/fdr_record.h"
#include "formats/xray/xray_header.h"

namespace ttd::fmt::xray {

struct XrayReport {
  FileHeader header;
  uint64_t file_size = 0;
  uint64_t buffers = 0;
  uint64_t function_records = 0;
  uint64_t call_arguments = 0;
  uint64_t custom_events = 0;
  uint64_t typed_events = 0;
  std::set<uint64_t> threads;
  std::set<uint64_t> pids;
  bool have_walltime = false;
  uint64_t walltime_seconds = 0;  // of the first buffer
  uint32_t walltime_micros = 0;
  std::vector<Recovery> recoveries;
  uint64_t unterminated_buffer = ~uint64_t(0);  // FdrProducer::unterminated_buffer()
  // Set when the survey stopped at bad input; the second pass reports the
  // same error after emitting everything before it.
  std::string error;
};

class FdrSurvey final : public RecordVisitor {
 public:
  explicit FdrSurvey(XrayReport& report) : r_(report) {}
  Status visit(const FdrRecord& r) override {
    count(r);
    return {};
  }
  void count(const FdrRecord& r);

 private:
  XrayReport& r_;
};

// Runs the survey over an FDR log (basic logs: header facts only).
XrayReport survey_xray(const std::string& path);

// "key = value" facts for TraceInfo::properties, recoveries included.
std::vector<std::pair<std::string, std::string>> report_properties(const XrayReport& r);

}  // namespace ttd::fmt::xray
