#include "formats/xray/fdr_survey.h"

#include <cstdio>

#include "formats/xray/fdr_producer.h"

namespace ttd::fmt::xray {

void FdrSurvey::count(const FdrRecord& rec) {
  switch (rec.kind) {
    case RecordKind::Function:
      ++r_.function_records;
      break;
    case RecordKind::CallArgument:
      ++r_.call_arguments;
      break;
    case RecordKind::CustomEvent:
      ++r_.custom_events;
      break;
    case RecordKind::TypedEvent:
      ++r_.typed_events;
      break;
    case RecordKind::NewBuffer:
      r_.threads.insert(uint64_t(uint32_t(rec.id)));
      break;
    case RecordKind::Pid:
      r_.pids.insert(uint64_t(uint32_t(rec.id)));
      break;
    case RecordKind::WallTime:
      if (!r_.have_walltime) {
        r_.have_walltime = true;
        r_.walltime_seconds = rec.value;
        r_.walltime_micros = rec.micros;
      }
      break;
    default:
      break;
  }
}

XrayReport survey_xray(const std::string& path) {
  XrayReport rep;
  auto in = open_xray_file(path);
  if (!in) {
    rep.error = in.error().to_string();
    return rep;
  }
  rep.file_size = in->file_size();
  auto h = read_file_header(*in);
  if (!h) {
    rep.error = h.error().to_string();
    return rep;
  }
  rep.header = *h;
  if (!h->is_fdr()) return rep;
  FdrProducer prod(*in, *h);
  FdrSurvey survey(rep);
  FdrRecord r;
  for (;;) {
    auto step = prod.next(r);
    if (step == FdrProducer::Next::Failed) rep.error = prod.error().to_string();
    if (step != FdrProducer::Next::Record) break;
    survey.count(r);
  }
  rep.buffers = prod.buffers();
  rep.recoveries = prod.recoveries();
  rep.unterminated_buffer = prod.unterminated_buffer();
  return rep;
}

std::vector<std::pair<std::string, std::string>> report_properties(const XrayReport& r) {
  std::vector<std::pair<std::string, std::string>> p;
  const FileHeader& h = r.header;
  p.emplace_back("xray.mode", h.is_fdr() ? "fdr" : "basic");
  p.emplace_back("xray.version", std::to_string(h.version));
  p.emplace_back("xray.cycle_frequency", std::to_string(h.cycle_frequency));
  p.emplace_back("xray.constant_tsc", h.constant_tsc ? "true" : "false");
  p.emplace_back("xray.nonstop_tsc", h.nonstop_tsc ? "true" : "false");
  if (!h.is_fdr()) {
    uint64_t body = r.file_size > kFileHeaderSize ? r.file_size - kFileHeaderSize : 0;
    p.emplace_back("xray.records", std::to_string(body / 32));
    return p;
  }
  p.emplace_back("xray.thread_buffer_size", std::to_string(h.buffer_size));
  p.emplace_back("xray.buffers", std::to_string(r.buffers));
  p.emplace_back("xray.threads", std::to_string(r.threads.size()));
  if (!r.pids.empty()) p.emplace_back("xray.processes", std::to_string(r.pids.size()));
  p.emplace_back("xray.function_records", std::to_string(r.function_records));
  p.emplace_back("xray.call_arguments", std::to_string(r.call_arguments));
  p.emplace_back("xray.custom_events", std::to_string(r.custom_events));
  p.emplace_back("xray.typed_events", std::to_string(r.typed_events));
  if (r.have_walltime) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%llu.%06u", static_cast<unsigned long long>(r.walltime_seconds), r.walltime_micros);
    p.emplace_back("xray.first_walltime", buf);
  }
  uint64_t skipped = 0, lost = 0, suspected = 0, cut = 0;
  for (const auto& rec : r.recoveries) {
    skipped += rec.skipped;
    (rec.certain ? lost : suspected) += rec.lost;
    cut += rec.certain;
  }
  if (cut) {
    p.emplace_back("xray.recovered.cut_records", std::to_string(cut));
    p.emplace_back("xray.recovered.skipped_bytes", std::to_string(skipped));
    p.emplace_back("xray.recovered.lost_bytes_at_least", std::to_string(lost));
  }
  if (r.recoveries.size() > cut) {
    p.emplace_back("xray.recovered.suspect_buffers", std::to_string(r.recoveries.size() - cut));
    p.emplace_back("xray.recovered.suspected_lost_bytes", std::to_string(suspected));
  }
  // Each region with its offsets; a log can have one per buffer, so only
  // the first few of each kind are listed one by one.
  constexpr uint64_t kListed = 16;
  uint64_t listed_cut = 0, listed_suspect = 0;
  for (const auto& rec : r.recoveries) {
    uint64_t& listed = rec.certain ? listed_cut : listed_suspect;
    if (listed++ >= kListed) continue;
    p.emplace_back(std::string(rec.certain ? "xray.skipped@" : "xray.suspected@") + std::to_string(rec.offset),
                   describe(rec));
  }
  if (listed_cut > kListed)
    p.emplace_back("xray.skipped.more", std::to_string(listed_cut - kListed) + " more cut records not listed");
  if (listed_suspect > kListed)
    p.emplace_back("xray.suspected.more", std::to_string(listed_suspect - kListed) + " more buffers not listed");
  if (r.unterminated_buffer != ~uint64_t(0))
    p.emplace_back("xray.truncation", "the version 1 buffer at offset " + std::to_string(r.unterminated_buffer) +
                                          " has no EndOfBuffer before the file ends at offset " +
                                          std::to_string(r.file_size) + ": the log may have been cut there");
  if (!r.error.empty()) p.emplace_back("xray.error", r.error);
  return p;
}

}  // namespace ttd::fmt::xray
