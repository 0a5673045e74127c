// Developer tool: prints an XRay log's raw records (fdr-dump style), its
// expanded events, plus what the reader recovered (`ttd calls` lists its calls).
//   xray_dump records|events|info LOG [INSTRUMENTED_BINARY]
#include <cstdio>
#include <cstring>
#include <iostream>

#include "formats/xray/record_printer.h"
#include "formats/xray/xray_pipeline.h"
#include "formats/xray/xray_reader.h"

using namespace ttd::fmt::xray;

namespace {

struct PrintEvents : EventConsumer {
  ttd::Status on_event(const XrayEvent& e) override {
    static const char* k[] = {"enter", "enter-args", "exit", "tail-exit", "custom", "typed"};
    std::printf("%llu @%llu %s fn=%u tsc=%llu cpu=%u tid=%llu pid=%llu", (unsigned long long)e.eid,
                (unsigned long long)e.offset, k[int(e.kind)], e.func_id, (unsigned long long)e.tsc, e.cpu,
                (unsigned long long)e.tid, (unsigned long long)e.pid);
    for (auto a : e.args) std::printf(" arg=%llu", (unsigned long long)a);
    if (!e.payload.empty()) std::printf(" data='%.*s'", int(e.payload.size()), (const char*)e.payload.data());
    std::printf("\n");
    return {};
  }
  void on_gap(uint64_t tid, uint64_t offset) override {
    std::printf("-- gap in thread %llu at %llu\n", (unsigned long long)tid, (unsigned long long)offset);
  }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s records|events|info LOG [BINARY]\n", argv[0]);
    return 2;
  }
  std::string what = argv[1], log = argv[2];
  XrayReport rep;
  ttd::Status s;
  if (what == "records") {
    RecordPrinter p(std::cout, survey_xray(log).header.version);
    s = read_fdr_records(log, p, &rep);
  } else if (what == "events") {
    PrintEvents p;
    s = read_xray_events(log, p, &rep);
  } else if (what == "info") {
    ttd::fmt::ReaderOptions o;
    if (argc > 3) o.instr_map_binary = argv[3];
    auto r = XrayTraceReader::open(log, o);
    if (!r) {
      std::fprintf(stderr, "%s\n", r.error().to_string().c_str());
      return 1;
    }
    auto info = (*r)->trace_info();
    std::printf("format %s arch %d exec '%s'\nnote: %s\n", info.format.c_str(), int(info.arch), info.exec_path.c_str(),
                info.caps.note.c_str());
    for (const auto& [k, v] : info.properties) std::printf("%s = %s\n", k.c_str(), v.c_str());
    return 0;
  }
  if (what == "records")
    for (const auto& r : rep.recoveries) std::fprintf(stderr, "recovered: %s\n", describe(r).c_str());
  else if (!rep.recoveries.empty())
    std::fprintf(stderr, "%zu recovered region(s); see 'records' or 'info'\n", rep.recoveries.size());
  if (!s) {
    std::fprintf(stderr, "error: %s\n", s.error().to_string().c_str());
    return 1;
  }
  return 0;
}
