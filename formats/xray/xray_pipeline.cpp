#include "formats/xray/xray_pipeline.h"

#include "formats/xray/basic_reader.h"
#include "formats/xray/fdr_expander.h"
#include "formats/xray/fdr_producer.h"
#include "formats/xray/fdr_survey.h"

#include <optional>

namespace ttd::fmt::xray {

namespace {

constexpr uint64_t kProgressEvery = uint64_t(4) << 20;

// Templated on the visitor so that the expander (a final class) is called
// directly in the per-record loop rather than through the vtable.
template <class Visitor>
Status run_fdr(FileWindow& in, const FileHeader& h, Visitor& v, XrayReport* report, const ByteProgress& progress) {
  FdrProducer prod(in, h);
  std::optional<FdrSurvey> survey;
  if (report) survey.emplace(*report);
  FdrRecord r;
  uint64_t next_tick = kProgressEvery;
  Status status;
  for (;;) {
    auto step = prod.next(r);
    if (step != FdrProducer::Next::Record) {
      if (step == FdrProducer::Next::Failed) status = prod.error();
      break;
    }
    if (survey) survey->count(r);
    if constexpr (requires { v.accept(r); }) {
      if (!v.accept(r)) {
        status = v.error();
        break;
      }
    } else if (auto s = v.visit(r); !s) {
      status = s;
      break;
    }
    if (progress && in.offset() >= next_tick) {
      next_tick = in.offset() + kProgressEvery;
      if (!progress(in.offset(), in.file_size())) {
        status = make_error_at(in.path(), in.offset(), "reading cancelled");
        break;
      }
    }
  }
  if (report) {
    report->buffers = prod.buffers();
    report->recoveries = prod.recoveries();
    report->unterminated_buffer = prod.unterminated_buffer();
    if (!status) report->error = status.error().to_string();
  }
  return status;
}

struct Opened {
  FileWindow in;
  FileHeader header;
};

Result<Opened> open_log(const std::string& path, XrayReport* report) {
  auto in = open_xray_file(path);
  if (!in) return in.error();
  if (report) report->file_size = in->file_size();
  auto h = read_file_header(*in);
  if (!h) return h.error();
  if (report) report->header = *h;
  return Opened{std::move(*in), *h};
}

}  // namespace

Status read_fdr_records(const std::string& path, RecordVisitor& v, XrayReport* report, const ByteProgress& progress) {
  auto log = open_log(path, report);
  if (!log) return log.error();
  if (!log->header.is_fdr()) return make_error_at(path, 2, "a basic-mode XRay log has no FDR records");
  return run_fdr(log->in, log->header, v, report, progress);
}

Status read_xray_events(const std::string& path, EventConsumer& out, XrayReport* report, const ByteProgress& progress) {
  auto log = open_log(path, report);
  if (!log) return log.error();
  if (!log->header.is_fdr()) {
    FileWindow& in = log->in;
    uint64_t size = in.file_size();
    auto tick = [&](uint64_t done) { return !progress || progress(done, size); };
    return read_basic_log(in, log->header, out, tick);
  }
  FdrExpander expander(log->header.version, out, path);
  Status s = run_fdr(log->in, log->header, expander, report, progress);
  // Entries read before an error are valid: hand over the held-back one.
  Status f = expander.flush();
  if (!s) return s;
  return f;
}

}  // namespace ttd::fmt::xray
